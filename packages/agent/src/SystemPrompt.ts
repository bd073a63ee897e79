/**
 * The system prompt, built for each request: what the agent is, its tools and
 * how to use them well, where it works, the platform and the date; then the
 * instructions the user keeps in files — a user-level `AGENTS.md` under the
 * home and the project's `AGENTS.md` (or `CLAUDE.md` where a directory has no
 * `AGENTS.md`) from the repository root down to the working directory — and
 * whatever the configuration appends.
 *
 * The prompt is part of the request, never of the conversation: the log keeps
 * only which prompt a request used (`Recorded`: its sha256 and its sources),
 * so a reader can tell when it changed and where it came from.
 *
 * The loop takes this service when it is provided (the command line provides
 * `layer`); a library user may provide their own, or none — the loop then
 * sends its config's `system`, if any, as it is.
 */
import { createHash } from "node:crypto"
import { constants as fsConstants } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Clock, Context, Effect, Layer } from "effect"
import type { LlmAdapter } from "@turnlog/llm"
import type { SessionLog } from "@turnlog/protocol"

/** A piece of the prompt and where it came from ("default", "config:appendSystem", an absolute file path). */
export interface Part {
  readonly text: string
  readonly source: string
}

/** The prompt a request is sent with. */
export interface Prompt {
  readonly text: string
  readonly sources: ReadonlyArray<string>
}

/** What the log records of a request's prompt (`request/start`'s `system`). */
export interface Recorded {
  /** The sha256 of the prompt's text, in hex. */
  readonly hash: string
  readonly sources: ReadonlyArray<string>
}

/** What a prompt is built for: the session's directory and the tools its request offers. */
export interface Request {
  readonly cwd: string
  readonly tools: ReadonlyArray<LlmAdapter.ToolSpec>
}

export interface Service {
  readonly build: (request: Request) => Effect.Effect<Prompt>
}

export class SystemPrompt extends Context.Tag("@turnlog/agent/SystemPrompt")<SystemPrompt, Service>() {}

export const record = (prompt: Prompt): Recorded => ({
  hash: createHash("sha256").update(prompt.text, "utf8").digest("hex"),
  sources: prompt.sources,
})

/** The first sentence of a tool's description: enough to tell the tools apart. */
const summary = (description: string): string => {
  const end = description.search(/\.(\s|$)/)
  return end === -1 ? description : description.slice(0, end + 1)
}

const localDate = (millis: number): string => {
  const d = new Date(millis)
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}

/** The default prompt for a request in `cwd` offering `tools`, on `date` (YYYY-MM-DD). */
export const defaultText = (request: Request, date: string, platform: string = `${process.platform} (${process.arch})`): string => {
  const names = new Set(request.tools.map((t) => t.name))
  const guidance = [
    "- Look before you act: list and read the files a task concerns before changing them, and read a file again before editing it if it may have changed.",
    names.has("edit_file") &&
    "- Change existing files with edit_file, replacing the exact passage (copied from what you read, with enough surrounding lines to be unique); use write_file only for new files or when most of a file changes.",
    names.has("run_command") &&
    "- Use run_command to build, test, search (grep, find, git status) and check your work; not to read or write files the file tools can.",
    "- Keep to the working directory: give paths relative to it; tools refuse paths outside it.",
    "- Ask before anything destructive or outside the task, and say when something failed rather than guessing.",
    "- Be brief: say what you did and what remains, naming the files you changed.",
  ].filter((line): line is string => typeof line === "string")
  return [
    "You are turnlog, a coding agent. You help the user with software tasks in their project: you read and change its files and run commands through your tools, and answer in plain, concise text.",
    "",
    ...(request.tools.length === 0
      ? ["You have no tools in this session: answer from what the user gives you."]
      : ["Tools:", ...request.tools.map((t) => `- ${t.name}: ${summary(t.description)}`)]),
    "",
    "How to work:",
    ...guidance,
    "",
    `Working directory: ${request.cwd}`,
    `Platform: ${platform}`,
    `Today's date: ${date}`,
  ].join("\n")
}

/** An instruction file is read up to this many bytes; the rest is left out, and that is said. */
export const INSTRUCTIONS_CAP_BYTES = 64 * 1024

/** A regular file's text (up to the cap), or undefined when there is none to read. */
const readInstructions = async (file: string): Promise<string | undefined> => {
  let handle: fs.FileHandle
  try {
    // Non-blocking: a named pipe called AGENTS.md must not hold up every request.
    handle = await fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) return undefined
    const buffer = Buffer.alloc(Math.min(stat.size, INSTRUCTIONS_CAP_BYTES))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    const text = buffer.subarray(0, bytesRead).toString("utf8").trim()
    return stat.size > INSTRUCTIONS_CAP_BYTES
      ? `${text}\n[${stat.size - INSTRUCTIONS_CAP_BYTES} more bytes of ${path.basename(file)} left out]`
      : text
  } catch {
    return undefined
  } finally {
    await handle.close()
  }
}

const exists = (p: string) => fs.lstat(p).then(() => true, () => false)

/**
 * The directories whose instructions apply in `cwd`, outermost first: from the
 * repository root (the nearest ancestor holding `.git`) down to `cwd`; only
 * `cwd` itself outside a repository.
 */
export const projectDirectories = async (cwd: string): Promise<ReadonlyArray<string>> => {
  const chain: Array<string> = []
  for (let dir = path.resolve(cwd);; dir = path.dirname(dir)) {
    chain.unshift(dir)
    if (await exists(path.join(dir, ".git"))) return chain
    if (path.dirname(dir) === dir) return [path.resolve(cwd)]
  }
}

/** `AGENTS.md` in `dir`, else `CLAUDE.md`: the instructions found there. */
const instructionsIn = async (dir: string): Promise<Part | undefined> => {
  for (const name of ["AGENTS.md", "CLAUDE.md"]) {
    const file = path.join(dir, name)
    const text = await readInstructions(file)
    if (text !== undefined) return text === "" ? undefined : { text, source: file }
  }
  return undefined
}

/** The instruction files that apply in `cwd`: the user-level one under `home`, then the project's, outermost first. */
export const instructionFiles = async (cwd: string, home: string | undefined): Promise<ReadonlyArray<Part>> => {
  const found: Array<Part> = []
  if (home !== undefined) {
    const text = await readInstructions(path.join(home, "AGENTS.md"))
    if (text !== undefined && text !== "") found.push({ text, source: path.join(home, "AGENTS.md") })
  }
  for (const dir of await projectDirectories(cwd)) {
    const part = await instructionsIn(dir)
    // The home's own file is already there when the project is the home.
    if (part !== undefined && !found.some((f) => f.source === part.source)) found.push(part)
  }
  return found
}

/** The prompt's text from its base and the parts after it. */
export const assemble = (base: Part | undefined, instructions: ReadonlyArray<Part>, appended: ReadonlyArray<Part>): Prompt => {
  const sections: Array<string> = []
  if (base !== undefined && base.text !== "") sections.push(base.text)
  if (instructions.length > 0) {
    sections.push(
      [
        "# Instructions",
        "",
        "The user keeps these instructions for work here (the later and the nearer to the working directory take precedence):",
        ...instructions.map((part) => `\n## ${part.source}\n\n${part.text}`),
      ].join("\n"),
    )
  }
  for (const part of appended) if (part.text !== "") sections.push(part.text)
  const used = [base, ...instructions, ...appended].filter((p): p is Part => p !== undefined && p.text !== "")
  return { text: sections.join("\n\n"), sources: used.map((p) => p.source) }
}

export interface Options {
  /** Replaces the default prompt (the config's `system` or `systemFile`). */
  readonly system?: Part
  /** Added after everything else, in order (the config's `appendSystem`, `appendSystemFile`). */
  readonly append?: ReadonlyArray<Part>
  /** Where the user-level `AGENTS.md` is looked for (the command line: its home). */
  readonly home?: string
  /** Whether the project's and the user's instruction files are read (default true). */
  readonly instructionFiles?: boolean
  /** How the platform is named (default: Node's platform and architecture). */
  readonly platform?: string
}

export const make = (options: Options = {}): Service => ({
  build: (request) =>
    Effect.gen(function*() {
      const date = localDate(yield* Clock.currentTimeMillis)
      const base = options.system ?? { text: defaultText(request, date, options.platform), source: "default" }
      const files = options.instructionFiles === false
        ? []
        : yield* Effect.promise(() => instructionFiles(request.cwd, options.home))
      return assemble(base, files, options.append ?? [])
    }),
})

export const layer = (options: Options = {}): Layer.Layer<SystemPrompt> => Layer.succeed(SystemPrompt, make(options))

/** What a read-only session's model is told, after everything else (recorded as `mode:read-only`). */
export const READ_ONLY_TEXT = [
  "# Mode: read-only",
  "",
  "This session is in read-only mode: files are not written or edited and commands are not run (such calls are refused without asking the user).",
  "Read and list files to understand the task, then answer with a plan: the changes you would make, file by file, and how you would check them.",
  "The user switches the mode when the plan should be carried out.",
].join("\n")

/** The prompt a session of `mode` is sent: read-only adds what the model must know; the others change nothing. */
export const forMode = (prompt: Prompt | undefined, mode: SessionLog.Mode): Prompt | undefined => {
  if (mode !== "read-only") return prompt
  const part = { text: READ_ONLY_TEXT, source: "mode:read-only" }
  return prompt === undefined || prompt.text === ""
    ? { text: part.text, sources: [part.source] }
    : { text: `${prompt.text}\n\n${part.text}`, sources: [...prompt.sources, part.source] }
}

/** Always the same text (a library's fixed prompt), recorded with `source`. */
export const fixed = (text: string, source = "config:system"): Service => ({
  build: () => Effect.succeed(assemble({ text, source }, [], [])),
})
