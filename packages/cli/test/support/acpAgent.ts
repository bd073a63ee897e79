/**
 * `turnlog acp` as an editor runs it: the real binary as a subprocess with the
 * scripted model, the SDK's client on its stdio, driven by a function, until
 * the agent exits after its stdin closes.
 */
import { spawn } from "node:child_process"
import { PassThrough, Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"
import { BIN, cleanEnv } from "./turnlog.js"

/** `turnlog acp` driven by the SDK's client through `drive`, until it exits after stdin closes. */
export const agent = async (
  home: string,
  workspace: string,
  /** The scripted model (`TURNLOG_SCRIPTED_MODEL`); undefined: none, so a model runs only with a key or a config. */
  modelFile: string | undefined,
  drive: (ctx: acp.ClientContext) => Promise<void>,
  /** Arguments before `acp` (`--store postgres`) and environment added to the agent's. */
  options: {
    readonly args?: ReadonlyArray<string>
    readonly env?: Readonly<Record<string, string>>
    /** Answers the agent's permission questions (without it, the client has no answer to give). */
    readonly permission?: (params: acp.RequestPermissionRequest) => acp.RequestPermissionResponse
    /** Adds the editor's own handlers (its file system, its terminal). */
    readonly editor?: (client: acp.ClientApp) => acp.ClientApp
  } = {},
) => {
  const child = spawn(process.execPath, [BIN, ...(options.args ?? []), "acp"], {
    cwd: workspace,
    env: { ...cleanEnv(), TURNLOG_HOME: home, ...(modelFile === undefined ? {} : { TURNLOG_SCRIPTED_MODEL: modelFile }), ...options.env },
    stdio: "pipe",
  })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  const updates: Array<acp.SessionUpdate> = []
  const writer = (Writable.toWeb(child.stdin) as WritableStream<Uint8Array>).getWriter()
  // As an editor does, the agent's stdout is read until the agent exits, also
  // after the client is done with it: a notification the agent sends after the
  // last answer then finds a reader, not a broken pipe.
  const output = new PassThrough()
  child.stdout.on("data", (chunk: Buffer) => {
    if (!output.destroyed) output.write(chunk)
  })
  child.stdout.on("end", () => output.end())
  const stream = acp.ndJsonStream(
    new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) }),
    Readable.toWeb(output) as ReadableStream<Uint8Array>,
  )
  const base = acp.client({ name: "turnlog-tests" })
    .onNotification("session/update", ({ params }) => void updates.push(params.update))
  const client = options.editor === undefined ? base : options.editor(base)
  const permission = options.permission
  await (permission === undefined
    ? client
    : client.onRequest("session/request_permission", async ({ params }) => permission(params))).connectWith(stream, drive)
  await writer.close()
  return { code: await exited, updates, stderr }
}
