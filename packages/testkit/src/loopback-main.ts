/**
 * The loopback provider as its own process, for tests whose model traffic comes
 * from other processes (the agent crash test, ACP scenarios): a subprocess test
 * starts it, reads where it listens, and points the child's provider there.
 *
 *   loopback [script.json]
 *
 * The script is a JSON array of replies, or `{"replies": [...]}` (see `Reply`).
 * Once listening, one JSON line goes to stdout:
 *   {"url": "http://127.0.0.1:<port>", "baseUrls": {<api>: <baseUrl>, …}}
 * While it runs, `GET <url>/__loopback/requests` returns the recorded requests
 * and `POST <url>/__loopback/replies` queues more replies; `POST
 * <url>/__loopback/refusals` with `{"mintedBy": n}`, `{"next": n}` or
 * `{"contextWindow": n | null}` sets a refusal (see `Server.refuseReplay`,
 * `Server.setContextWindow`). SIGTERM or SIGINT
 * closes it (exit 0). A script that does not decode exits 2 with the reason on
 * stderr.
 */
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { type Api, decodeScript, type Reply, start } from "./Loopback.js"

const APIS: ReadonlyArray<Api> = ["openai-completions", "anthropic-messages", "openai-responses", "google-generative-ai"]

const fail = (message: string): never => {
  process.stderr.write(`loopback: ${message}\n`)
  process.exit(2)
}

const readScript = (path: string | undefined): ReadonlyArray<Reply> => {
  if (path === undefined) return []
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, "utf8"))
  } catch (error) {
    return fail(`cannot read the script ${path}: ${error instanceof Error ? error.message : String(error)}`)
  }
  return Either.getOrElse(decodeScript(json), (reason) => fail(`the script ${path} is not a list of replies:\n${reason}`))
}

const replies = readScript(process.argv[2])
const server = await start({ replies })
const baseUrls = Object.fromEntries(APIS.map((api) => [api, server.baseUrl(api)]))
process.stdout.write(`${JSON.stringify({ url: server.url, baseUrls })}\n`)

const shutdown = () => {
  server.close().then(() => process.exit(0), () => process.exit(1))
}
process.once("SIGTERM", shutdown)
process.once("SIGINT", shutdown)
