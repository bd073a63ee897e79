/**
 * `@file` in a prompt: each `@path` that names a regular file (relative to the
 * session's directory, or absolute) attaches the file's text to the prompt,
 * in the form an editor's attached file takes in the log (an embedded
 * resource, see `PromptContent` of `@turnlog/acp`), so the log reads the same
 * whichever way a file came. A word after `@` that names no file stays text
 * (a mention); a file that cannot be attached (binary, too large, unreadable)
 * stops the prompt with a sentence naming it, and nothing is sent.
 */
import { existsSync } from "node:fs"
import { isAbsolute, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Either } from "effect"
import * as PromptContent from "@turnlog/acp/PromptContent"
import type { TextBlock } from "@turnlog/protocol"
import * as RegularFile from "../RegularFile.js"

/** More than a model should be handed in one prompt without asking. */
export const MAX_ATTACH_BYTES = 1024 * 1024

const MENTION = /(?:^|\s)@([^\s@]+)/g

/** The paths the prompt names with `@` that exist, in order, each once. */
export const mentioned = (prompt: string, cwd: string): Array<string> => {
  const found: Array<string> = []
  for (const match of prompt.matchAll(MENTION)) {
    const path = match[1]!.replace(/[.,;:!?)]+$/, "")
    const full = isAbsolute(path) ? path : resolve(cwd, path)
    if (path !== "" && existsSync(full) && !found.includes(full)) found.push(full)
  }
  return found
}

/** The prompt as it is sent: its text, or its text and each attached file; or why it cannot be sent. */
export const content = (prompt: string, cwd: string): Either.Either<string | Array<TextBlock>, string> => {
  const files = mentioned(prompt, cwd)
  if (files.length === 0) return Either.right(prompt)
  const resources = []
  for (const file of files) {
    const text = RegularFile.read(file, MAX_ATTACH_BYTES)
    if (Either.isLeft(text)) return Either.left(`@${file} ${text.left}`)
    if (text.right.includes("\u0000")) return Either.left(`@${file} is binary: only text files can be attached`)
    resources.push({ type: "resource" as const, resource: { uri: pathToFileURL(file).href, text: text.right } })
  }
  // Text and text resources only: the result holds no image.
  return PromptContent.toUserContent([{ type: "text", text: prompt }, ...resources]).pipe(
    Either.map((blocks) => blocks.flatMap((b) => (b.type === "text" ? [b] : []))),
  )
}
