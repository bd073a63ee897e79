/**
 * The prompts typed in the interactive session, kept per directory under the
 * home (`history/<hash of the directory>.jsonl`, one JSON string a line, only
 * the owner may read it), so Up in the editor recalls what was asked here
 * before, across sessions. It is a convenience, not the log: a line that
 * cannot be read is passed over, and a history that cannot be written costs
 * nothing but the recall. Prompts are redacted as the log redacts them.
 */
import { createHash } from "node:crypto"
import { appendFileSync, mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/** How many of the latest prompts the editor is given. */
export const KEPT = 500

export const fileFor = (home: string, cwd: string): string => join(home, "history", `${createHash("sha256").update(cwd).digest("hex").slice(0, 32)}.jsonl`)

/** The prompts in `file`, oldest first, at most the latest `KEPT`. */
export const load = (file: string): Array<string> => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch {
    return []
  }
  const prompts: Array<string> = []
  for (const line of text.split("\n")) {
    if (line === "") continue
    try {
      const value: unknown = JSON.parse(line)
      if (typeof value === "string") prompts.push(value)
    } catch {
      // A torn last line (a crash mid-write) or a hand edit: that prompt is not recalled.
    }
  }
  return prompts.slice(-KEPT)
}

/** Adds `prompt` to `file`; `false` when it could not be written. */
export const append = (file: string, prompt: string): boolean => {
  try {
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 })
    appendFileSync(file, `${JSON.stringify(prompt)}\n`, { mode: 0o600 })
    return true
  } catch {
    return false
  }
}
