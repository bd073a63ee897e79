/**
 * The `edit_file` built-in: replaces an exact passage of a file in the
 * session's directory. A passage that is absent, or found more than once
 * without `replace_all`, is refused with a sentence saying so (and how many
 * times it occurs), so the model reads the file again or gives more context
 * instead of guessing. The file is written the way `write_file` writes —
 * confined the same way, checked again when it runs, a temporary renamed over
 * the target — and the result carries the unified diff of the change. Where
 * the session's client offers them (`ToolHost`), the text is read from it (an
 * editor's unsaved buffer) and the edited text written back through it.
 */
import { Effect, Schema } from "effect"
import type { Options } from "./Builtins.js"
import { type Confined, confine } from "./internal/confine.js"
import * as Hosted from "./internal/Hosted.js"
import { openForReading } from "./internal/inside.js"
import { describeNonFile, replaceFile } from "./internal/replace.js"
import * as TextEdit from "./internal/TextEdit.js"
import { PathOutsideCwd, ToolFailed } from "./ToolError.js"
import type { ToolHost } from "./ToolHost.js"
import * as Tools from "./Tools.js"

/** Files larger than this are not edited in memory (default of `Options.editCapBytes`). */
const EDIT_CAP_BYTES = 8 * 1024 * 1024

const refused = (detail: string) => new ToolFailed({ tool: "edit_file", detail })

const times = (n: number) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`)

/** The file's text, read without waiting on a special file and refused when it is not a regular file. */
const readText = async (root: string, relative: string, cap: number): Promise<string> => {
  // Opened through the checked directory: a link swapped in since is not followed.
  const handle = await openForReading(root, relative)
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw new Error(describeNonFile(relative, stat))
    if (stat.size > cap) throw new Error(`${relative} is ${stat.size} bytes, more than the ${cap} bytes edit_file edits`)
    return await handle.readFile({ encoding: "utf8" })
  } finally {
    await handle.close()
  }
}

/** The file's text, from the session's client when it offers to read (its buffer may not be saved), else from disk. */
const current = (target: Confined, cap: number, host: ToolHost | undefined): Effect.Effect<string, ToolFailed> => {
  if (host?.readTextFile === undefined) {
    return Effect.tryPromise({
      try: () => readText(target.root, target.relative, cap),
      catch: (error) => refused(error instanceof Error ? error.message : String(error)),
    })
  }
  return Effect.filterOrFail(
    Hosted.read("edit_file", host, host.readTextFile, target),
    (text) => Buffer.byteLength(text, "utf8") <= cap,
    (text) => refused(`${target.relative} is ${Buffer.byteLength(text, "utf8")} bytes, more than the ${cap} bytes edit_file edits`),
  )
}

/** Writes the edited text back where it was read from: through the session's client when it offers to write. */
const store = (target: Confined, after: string, host: ToolHost | undefined): Effect.Effect<void, ToolFailed> =>
  host?.writeTextFile === undefined
    ? Effect.tryPromise({
      try: () => replaceFile(target.absolute, target.relative, after),
      catch: (error) => refused(error instanceof Error ? error.message : String(error)),
    })
    : Hosted.write("edit_file", host, host.writeTextFile, target, after)

/**
 * The edits that replace `oldText` in `content`, or why there are none. A file
 * with CRLF line ends is matched with the passage's newlines read as CRLF
 * when the passage as given is not found.
 */
export const plan = (
  relative: string,
  content: string,
  oldText: string,
  newText: string,
  replaceAll: boolean,
): { readonly edits: ReadonlyArray<TextEdit.Edit> } | { readonly refused: string } => {
  if (oldText === "") return { refused: "old_text is empty: give the exact passage to replace" }
  if (oldText === newText) return { refused: "old_text and new_text are the same: there is nothing to change" }
  let passage = oldText
  let replacement = newText
  let found = TextEdit.occurrences(content, passage)
  if (found.length === 0 && content.includes("\r\n") && oldText.includes("\n")) {
    passage = oldText.replace(/\r?\n/g, "\r\n")
    replacement = newText.replace(/\r?\n/g, "\r\n")
    found = TextEdit.occurrences(content, passage)
  }
  if (found.length === 0) {
    return { refused: `old_text does not occur in ${relative}: read the file again and copy the passage exactly` }
  }
  if (found.length > 1 && !replaceAll) {
    return {
      refused: `old_text occurs ${times(found.length)} in ${relative}: include more of the surrounding text to make it unique, or set replace_all`,
    }
  }
  return { edits: found.map((start) => ({ start, end: start + passage.length, text: replacement })) }
}

export const editFile = (options: Options = {}): Tools.Tool =>
  Tools.define({
    name: "edit_file",
    description:
      "Replace an exact passage of a UTF-8 text file in the working directory. old_text must occur exactly once (include enough surrounding lines to make it unique) unless replace_all is set; whitespace and indentation must match. Returns a unified diff of the change.",
    parameters: Schema.Struct({
      path: Schema.String.annotations({ description: "A path relative to the working directory" }),
      old_text: Schema.String.annotations({ description: "The exact text to replace, as it is in the file" }),
      new_text: Schema.String.annotations({ description: "The text to put in its place" }),
      replace_all: Schema.optionalWith(
        Schema.Boolean.annotations({ description: "Replace every occurrence of old_text (default: false)" }),
        { exact: true },
      ),
    }),
    timeoutMs: options.fileTimeoutMs ?? 30_000,
    display: {
      kind: "edit",
      title: (args) => `Edit ${args.path}`,
      paths: (args) => [args.path],
      changes: (args) => [{ path: args.path, oldText: args.old_text, newText: args.new_text }],
    },
    prepare: (args, context) =>
      Effect.map(confine("edit_file", context.cwd, args.path), (target) => ({
        permission: { kind: "write" as const },
        // Checked again when it runs: the tree may have changed while permission was asked.
        run: Effect.flatMap(confine("edit_file", context.cwd, args.path), (now): Effect.Effect<string, PathOutsideCwd | ToolFailed> =>
          now.absolute !== target.absolute
            ? Effect.fail(
              new PathOutsideCwd({
                path: args.path,
                cwd: context.cwd,
                detail: `it resolved to ${target.absolute} when permission was asked and to ${now.absolute} now`,
              }),
            )
            : !now.exists
            ? Effect.fail(refused(`${now.relative} does not exist: create it with write_file`))
            : Effect.flatMap(current(now, options.editCapBytes ?? EDIT_CAP_BYTES, context.host), (content) => {
              const planned = plan(now.relative, content, args.old_text, args.new_text, args.replace_all === true)
              if ("refused" in planned) return Effect.fail(refused(planned.refused))
              const after = TextEdit.apply(content, planned.edits)
              const n = planned.edits.length
              return Effect.as(
                store(now, after, context.host),
                `edited ${now.relative}: ${n === 1 ? "1 replacement" : `${n} replacements`}\n${TextEdit.unifiedDiff(now.relative, content, planned.edits)}`,
              )
            })),
      })),
  })
