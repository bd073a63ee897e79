/**
 * Runs a scenario (see `Scenario.ts`): a temp home and workspace, the seeded
 * session if any, `turnlog acp` spawned with the scripted model, the steps
 * played by the SDK's client, stdin closed, then the agent's stdout frames and
 * the durable logs collected and normalised. `update` writes them as the
 * scenario's expected files.
 */
import { spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"
import { play, tapLines } from "./internal/ScenarioClient.js"
import { type Scenario, SESSION_EXPECTED, STDERR_EXPECTED, STDOUT_EXPECTED } from "./Scenario.js"
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
    await play(scenario.input, paths, child, frames, hidden, acp.ndJsonStream(input, output), (text) => writer.write(encoder.encode(text)))
  } catch (error) {
    child.kill("SIGKILL")
    await exited
    clearTimeout(killer)
    throw new Error(`scenario ${scenario.name}: ${error instanceof Error ? error.message : String(error)}\n--- agent stderr ---\n${stderr}`, { cause: error })
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
