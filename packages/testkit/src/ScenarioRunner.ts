/**
 * Runs a scenario (see `Scenario.ts`): a temp home and workspace, the seeded
 * session if any, `turnlog acp` spawned with the scripted model, the steps
 * played by the SDK's client, stdin closed, then the agent's stdout frames and
 * the durable logs collected and normalised. `update` writes them as the
 * scenario's expected files.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"
import { type Input, type PermissionAnswer, type Scenario, SESSION_EXPECTED, STDERR_EXPECTED, type Step, STDOUT_EXPECTED } from "./Scenario.js"
import * as ScenarioNormalize from "./ScenarioNormalize.js"

export { load, type Scenario } from "./Scenario.js"

export interface RunOptions {
  /** The `turnlog` launcher (`packages/cli/bin/turnlog.js`). */
  readonly bin: string
  /** Extra environment for the agent process. */
  readonly env?: Readonly<Record<string, string>>
  /** Kill the agent if the run takes longer than this (a hung agent, not a slow one). */
  readonly killAfterMs?: number
}

export interface Result {
  readonly stdout: ReadonlyArray<string>
  readonly session: ReadonlyArray<string>
  /** The agent's own notes (`turnlog:` lines), normalised. */
  readonly notes: ReadonlyArray<string>
  /** Everything the agent wrote on stderr, as is. */
  readonly stderr: string
  readonly exitCode: number | null
}

interface Paths {
  readonly root: string
  readonly home: string
  readonly workspace: string
}

const prepare = (scenario: Scenario): Paths & { readonly seededId?: string } => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `turnlog-scenario-${scenario.name}-`)))
  const home = join(root, "home")
  const workspace = join(root, "workspace")
  mkdirSync(join(home, "sessions"), { recursive: true })
  mkdirSync(workspace, { recursive: true })
  if (scenario.workspace !== undefined) cpSync(scenario.workspace, workspace, { recursive: true })
  if (scenario.input.config !== undefined) {
    writeFileSync(join(home, "config.json"), JSON.stringify(scenario.input.config, null, 2))
  }
  if (scenario.seed === undefined) return { root, home, workspace }
  const text = readFileSync(scenario.seed, "utf8").split("<workspace>").join(workspace).split("<home>").join(home)
  const header = JSON.parse(text.slice(0, text.indexOf("\n"))) as { id: string }
  writeFileSync(join(home, "sessions", `${header.id}.jsonl`), text)
  return { root, home, workspace, seededId: header.id }
}

/** The JSON-RPC id a frame carries, or `undefined` if it is not a JSON object with one. */
const idOf = (frame: string): unknown => {
  try {
    const value = JSON.parse(frame) as { id?: unknown } | null
    return typeof value === "object" && value !== null && "id" in value ? value.id : undefined
  } catch {
    return undefined
  }
}

/**
 * The agent's stdout, with every line it writes kept, passed on line by line
 * to the SDK's client — except the answers to raw lines the runner wrote
 * itself (ids in `hidden`), which the client never asked for.
 */
const tapLines = (frames: Array<string>, hidden: ReadonlySet<unknown>) => {
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let pending = ""
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true })
      let newline = pending.indexOf("\n")
      while (newline >= 0) {
        const line = pending.slice(0, newline)
        pending = pending.slice(newline + 1)
        if (line.trim() !== "") frames.push(line)
        if (hidden.size === 0 || !hidden.has(idOf(line))) controller.enqueue(encoder.encode(`${line}\n`))
        newline = pending.indexOf("\n")
      }
    },
    flush(controller) {
      if (pending !== "") controller.enqueue(encoder.encode(pending))
    },
  })
}

const answer = (request: acp.RequestPermissionRequest, choice: PermissionAnswer | undefined): acp.RequestPermissionResponse => {
  if (choice === undefined) throw new Error(`unexpected permission request for ${request.toolCall.title}`)
  if (choice === "cancelled") return { outcome: { outcome: "cancelled" } }
  const kind = choice === "allow"
    ? "allow_once"
    : choice === "allow-always"
    ? "allow_always"
    : choice === "reject-always"
    ? "reject_always"
    : "reject_once"
  const option = request.options.find((o) => o.kind === kind)
  if (option === undefined) throw new Error(`the permission request offers no ${kind} option`)
  return { outcome: { outcome: "selected", optionId: option.optionId } }
}

const waitUntil = async (condition: () => boolean, child: ChildProcess): Promise<void> => {
  while (!condition()) {
    if (child.exitCode !== null) throw new Error(`the agent exited (code ${child.exitCode}) while a frame was awaited`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

const play = async (
  input: Input,
  paths: Paths & { readonly seededId?: string },
  child: ChildProcess,
  frames: Array<string>,
  hidden: Set<unknown>,
  stream: acp.Stream,
  writeRaw: (text: string) => Promise<void>,
): Promise<void> => {
  const answers = [...(input.permissions ?? [])]
  const updates = new Map<string, number>()
  const onUpdate = new Set<() => void>()
  const client = acp.client({ name: "turnlog-scenario" })
    .onNotification("session/update", ({ params }) => {
      updates.set(params.sessionId, (updates.get(params.sessionId) ?? 0) + 1)
      for (const f of onUpdate) f()
    })
    .onRequest("session/request_permission", ({ params }) => answer(params, answers.shift()))
  await client.connectWith(stream, async (ctx) => {
    let current: string | undefined
    const outcome = async (n: number, step: Step, expect: "result" | "error" | undefined, p: Promise<unknown>) => {
      const settled = await p.then(
        (value) => ({ kind: "result" as const, value }),
        (error: unknown) => ({ kind: "error" as const, value: error }),
      )
      if (settled.kind !== (expect ?? "result")) {
        const detail = settled.value instanceof Error ? settled.value.message : JSON.stringify(settled.value)
        throw new Error(`step ${n + 1} (${step.step}): expected ${expect ?? "result"}, got ${settled.kind}: ${detail}`)
      }
      return settled.kind === "result" ? settled.value : undefined
    }
    for (const [n, step] of input.steps.entries()) {
      switch (step.step) {
        case "initialize":
          await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
          break
        case "newSession": {
          const cwd = (step.cwd ?? "<workspace>").split("<workspace>").join(paths.workspace)
          const response = await outcome(
            n,
            step,
            step.expect,
            ctx.request("session/new", { cwd, mcpServers: (step.mcpServers ?? []) as Array<acp.McpServer> }),
          )
          if (response !== undefined) current = (response as acp.NewSessionResponse).sessionId
          break
        }
        case "loadSession": {
          const sessionId = step.sessionId === "<session>" ? current : step.sessionId ?? paths.seededId
          if (sessionId === undefined) throw new Error(`step ${n + 1}: no session to load (no seed.jsonl)`)
          await outcome(
            n,
            step,
            step.expect,
            ctx.request("session/load", { sessionId, cwd: paths.workspace, mcpServers: [] }),
          )
          current = sessionId
          break
        }
        case "prompt": {
          const sessionId = step.sessionId ?? current
          if (sessionId === undefined) throw new Error(`step ${n + 1}: no session to prompt`)
          const before = updates.get(sessionId) ?? 0
          let cancel: (() => void) | undefined
          if (step.cancelAfter !== undefined) {
            const target = before + step.cancelAfter
            cancel = () => {
              if ((updates.get(sessionId) ?? 0) >= target && cancel !== undefined) {
                onUpdate.delete(cancel)
                cancel = undefined
                void ctx.notify("session/cancel", { sessionId })
              }
            }
            onUpdate.add(cancel)
          }
          await outcome(
            n,
            step,
            step.expect,
            ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: step.text }] }),
          )
          if (cancel !== undefined) {
            onUpdate.delete(cancel)
            throw new Error(`step ${n + 1}: the prompt ended before ${step.cancelAfter} updates arrived to cancel after`)
          }
          break
        }
        case "request": {
          // "<session>" in the params is the current session's id, "<workspace>" the run's workspace.
          const params = JSON.parse(
            JSON.stringify(step.params ?? null).split("<workspace>").join(paths.workspace)
              .split("<session>").join(current ?? "<session>"),
          ) as unknown
          await outcome(n, step, step.expect, ctx.request(step.method, params))
          break
        }
        case "raw": {
          const answered = (frame: string) => idOf(frame) === step.id
          const seen = frames.filter(answered).length
          hidden.add(step.id)
          await writeRaw(`${step.line}\n`)
          await waitUntil(() => frames.filter(answered).length > seen, child)
          hidden.delete(step.id)
          break
        }
      }
    }
  })
}

const sessionLogs = (home: string): Array<string> => {
  const dir = join(home, "sessions")
  if (!existsSync(dir)) return []
  const logs = readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => readFileSync(join(dir, name), "utf8"))
    .map((text) => ({ text, createdAt: (JSON.parse(text.slice(0, text.indexOf("\n"))) as { createdAt: string }).createdAt }))
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
  return logs.flatMap((log) => log.text.split("\n").filter((line) => line !== ""))
}

export const run = async (scenario: Scenario, options: RunOptions): Promise<Result> => {
  const paths = prepare(scenario)
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    // The scenario decides the model and the config; nothing from the caller's environment leaks in.
    if (value !== undefined && !/_API_KEY$|^TURNLOG_/.test(key)) env[key] = value
  }
  Object.assign(env, options.env ?? {}, { TURNLOG_HOME: paths.home, TURNLOG_SCRIPTED_MODEL: scenario.modelFile })
  const child = spawn(process.execPath, [options.bin, "acp"], { cwd: paths.workspace, env, stdio: "pipe" })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text
  })
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  const killer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 240_000)

  const frames: Array<string> = []
  // Ids of raw lines awaiting their answer: those answers are not the client's.
  const hidden = new Set<unknown>()
  const writer = (Writable.toWeb(child.stdin) as WritableStream<Uint8Array>).getWriter()
  const input = new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) })
  const output = (Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>).pipeThrough(tapLines(frames, hidden))
  const encoder = new TextEncoder()
  try {
    await play(scenario.input, paths, child, frames, hidden, acp.ndJsonStream(input, output), (text) =>
      writer.write(encoder.encode(text)))
  } catch (error) {
    child.kill("SIGKILL")
    await exited
    clearTimeout(killer)
    throw new Error(`scenario ${scenario.name}: ${error instanceof Error ? error.message : String(error)}\n--- agent stderr ---\n${stderr}`)
  }
  await writer.close().catch(() => undefined)
  const exitCode = await exited
  clearTimeout(killer)

  const normalize = ScenarioNormalize.make([
    { path: paths.workspace, as: "<workspace>" },
    { path: paths.home, as: "<home>" },
    { path: paths.root, as: "<tmp>" },
    { path: scenario.dir, as: "<scenario>" },
  ])
  const stdout = frames.map(normalize.line)
  const session = sessionLogs(paths.home).map(normalize.line)
  const notes = stderr.split("\n").filter((l) => l.startsWith("turnlog: ")).map(normalize.text)
  rmSync(paths.root, { recursive: true, force: true })
  return { stdout, session, notes, stderr, exitCode }
}

/** Writes a result as the scenario's expected files. */
export const update = (scenario: Scenario, result: Result): void => {
  writeFileSync(join(scenario.dir, STDOUT_EXPECTED), result.stdout.map((l) => `${l}\n`).join(""))
  writeFileSync(join(scenario.dir, SESSION_EXPECTED), result.session.map((l) => `${l}\n`).join(""))
  writeFileSync(join(scenario.dir, STDERR_EXPECTED), result.notes.map((l) => `${l}\n`).join(""))
}

/** The scenarios under `dir`: every subdirectory with an `input.json`. */
export const list = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, "input.json")))
    .map((e) => join(dir, e.name))
    .sort()
