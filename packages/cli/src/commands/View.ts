/**
 * `turnlog view [<id>]`: the store's sessions in a browser, served on
 * 127.0.0.1 at a free port to requests carrying a random token (the address
 * printed holds it). A session's page is `export --html`'s, live: what another
 * process (or machine) appends arrives as it is flushed (`html/ViewServer.ts`).
 * Runs until interrupted (Ctrl-C).
 */
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { Effect } from "effect"
import type { SessionStore } from "@turnlog/store"
import { CommandFailed } from "../CliError.js"
import { handler } from "../html/ViewServer.js"
import * as StoreLayers from "../StoreLayers.js"
import { note, raw } from "../Output.js"
import * as SessionIdArg from "../SessionIdArg.js"
import type { Settings } from "../Settings.js"

export const view = (settings: Settings, options: { readonly id: string | undefined }) =>
  Effect.gen(function*() {
    if (options.id !== undefined) yield* SessionIdArg.parse(options.id)
    const runtime = yield* Effect.runtime<SessionStore.SessionStore>()
    const token = randomBytes(24).toString("base64url")
    const server = yield* Effect.acquireRelease(
      Effect.async<ReturnType<typeof createServer>, CommandFailed>((resume) => {
        const server = createServer(handler(runtime, { token, store: settings.store }))
        server.once("error", (e) => resume(Effect.fail(new CommandFailed({ message: `cannot serve on 127.0.0.1: ${e.message}` }))))
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        }),
    )
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const path = options.id === undefined ? "/" : `/s/${encodeURIComponent(options.id)}`
    yield* raw(`http://127.0.0.1:${port}${path}?token=${token}\n`)
    yield* note("serving the store's sessions on 127.0.0.1 until Ctrl-C; the address above holds its token")
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.provide(StoreLayers.readStoreLayer(settings)))
