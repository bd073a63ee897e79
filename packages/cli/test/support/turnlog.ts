/**
 * The real `turnlog` launcher as a subprocess, with a clean environment: no
 * provider keys and no TURNLOG_* settings leak in from the machine running
 * the tests, so what a test sets is all the command sees.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import * as PiAiScript from "@turnlog/llm-pi-ai/PiAiScript"
import { LogFormat } from "@turnlog/store"

export const BIN = fileURLToPath(new URL("../../bin/turnlog.js", import.meta.url))

export interface Outcome {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export const cleanEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/_API_KEY$|^TURNLOG_/.test(key)) env[key] = value
  }
  return env
}

const created: Array<string> = []

export const tempDir = (prefix: string): string => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `turnlog-${prefix}-`)))
  created.push(dir)
  return dir
}

/** Removes every directory `tempDir` made. */
export const removeTempDirs = (): void => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export const turnlog = (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Readonly<Record<string, string>> },
): Promise<Outcome> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd, env: { ...cleanEnv(), ...(options.env ?? {}) }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
        resolve({ code, stdout, stderr })
      },
    )
  })

/** Every line a failing command may print is one sentence: never a stack frame. */
export const hasStackTrace = (text: string): boolean => /^\s+at .+[(:]\d+/m.test(text)

/**
 * A scripted-model file (for TURNLOG_SCRIPTED_MODEL) whose calls answer with
 * `replies`, one text answer per call, streamed as a provider would.
 */
export const textScript = (dir: string, replies: ReadonlyArray<string>, name = "model.jsonl"): string => {
  const file = join(dir, name)
  writeFileSync(
    file,
    replies.map((text) => JSON.stringify(PiAiScript.response([{ type: "text", text }], "stop", { route: "turnlog/scripted" })))
      .join("\n") + "\n",
  )
  return file
}

/** The ids of the sessions in `home`'s JSONL store. */
export const sessionIds = (home: string): Array<string> =>
  readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl")).map((f) => f.replace(/\.jsonl$/, ""))

/**
 * Every line of session `id`'s JSONL log, parsed: the header, then the events
 * as a store reads them (a version-4 message's references to what its request
 * streamed resolved). Complete lines only: a line being written is not yet one.
 */
export const logLines = (home: string, id: string): Array<any> => {
  const file = join(home, "sessions", `${id}.jsonl`)
  const bytes = readFileSync(file)
  const end = bytes.lastIndexOf(0x0a) + 1
  const decoded = LogFormat.decode(bytes.subarray(0, end), file)
  if (Either.isLeft(decoded)) throw new Error(decoded.left.message)
  return [decoded.right.header, ...decoded.right.events]
}
