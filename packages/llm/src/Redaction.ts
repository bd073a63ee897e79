/**
 * Redaction of credential values: every occurrence of a secret the process
 * holds (a provider key) is replaced by `[redacted]`, in text, in a stream of
 * text deltas, in stream chunks, in messages and in any JSON-like value.
 *
 * Pure: a `Redactor` is made from the secret values and applied by the seams
 * that own what leaves the process (the model adapter, the session store's
 * append, the command line's output; see `Redacting.ts` and the cli). Values
 * shorter than `MIN_LENGTH` are ignored, so an ordinary word set in a
 * credential variable never blanks that word out of every text.
 *
 * A key split across deltas is still caught: `feed` releases only what can no
 * longer become part of a secret and holds back the rest (at most one
 * secret's length) until the next delta or the end. Whatever the split, the
 * released pieces put together equal `text` of the whole (leftmost, longest
 * match first) — a property the tests hold it to.
 */
import type { ContentBlock, Message, StreamChunk } from "@turnlog/protocol"

export const PLACEHOLDER = "[redacted]"

/** Shorter values are not secrets worth hiding, and hiding them would mangle ordinary text. */
export const MIN_LENGTH = 8

export interface Redactor {
  /** Distinct secrets of at least `MIN_LENGTH` characters, longest first. */
  readonly secrets: ReadonlyArray<string>
}

/** A redactor of the given values; blank, short and repeated ones are dropped, each trimmed first. */
export const make = (values: Iterable<string | undefined>): Redactor => {
  const unique = new Set<string>()
  for (const value of values) {
    const trimmed = value?.trim()
    if (trimmed !== undefined && trimmed.length >= MIN_LENGTH) unique.add(trimmed)
  }
  return { secrets: [...unique].sort((a, b) => b.length - a.length) }
}

/** Redacts nothing. */
export const none: Redactor = { secrets: [] }

export const isEmpty = (redactor: Redactor): boolean => redactor.secrets.length === 0

/** Whether `text` holds a secret. */
export const contains = (redactor: Redactor, text: string): boolean => redactor.secrets.some((s) => text.includes(s))

/**
 * One pass over `buffer`: secrets replaced left to right, the longest first at
 * each position. Unless `final`, the pass stops at the first position where a
 * secret longer than any match there could still be completed by text not yet
 * seen, and returns the rest as `held`.
 */
const scan = (secrets: ReadonlyArray<string>, buffer: string, final: boolean): { out: string; held: string } => {
  let out = ""
  let copied = 0
  let i = 0
  while (i < buffer.length) {
    const c = buffer.charCodeAt(i)
    const rest = buffer.length - i
    let matched: string | undefined
    let pending = false
    for (const secret of secrets) {
      if (secret.charCodeAt(0) !== c) continue
      if (secret.length <= rest) {
        if (buffer.startsWith(secret, i)) {
          matched = secret
          break
        }
      } else if (!final && secret.startsWith(buffer.slice(i))) {
        pending = true
        break
      }
    }
    if (pending) return { out: out + buffer.slice(copied, i), held: buffer.slice(i) }
    if (matched !== undefined) {
      out += buffer.slice(copied, i) + PLACEHOLDER
      i += matched.length
      copied = i
    } else {
      i++
    }
  }
  return { out: out + buffer.slice(copied), held: "" }
}

/** `text` with every secret replaced. */
export const text = (redactor: Redactor, value: string): string => contains(redactor, value) ? scan(redactor.secrets, value, true).out : value

/**
 * The next piece of a text that arrives in deltas: what can be released now,
 * and what is held back (it may be the start of a secret) for the next call.
 * After the last delta, `text(redactor, held)` releases the rest.
 */
export const feed = (redactor: Redactor, held: string, delta: string): { readonly out: string; readonly held: string } =>
  isEmpty(redactor) ? { out: held + delta, held: "" } : scan(redactor.secrets, held + delta, false)

/** Every string inside a JSON-like value redacted (object keys are left alone); unchanged parts keep their identity. */
export const json = <A>(redactor: Redactor, value: A): A => {
  if (isEmpty(redactor)) return value
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return text(redactor, v)
    if (Array.isArray(v)) {
      let changed = false
      const mapped = v.map((item) => {
        const next = walk(item)
        if (next !== item) changed = true
        return next
      })
      return changed ? mapped : v
    }
    if (typeof v === "object" && v !== null) {
      let changed = false
      const mapped: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(v)) {
        const next = walk(item)
        if (next !== item) changed = true
        mapped[key] = next
      }
      return changed ? mapped : v
    }
    return v
  }
  return walk(value) as A
}

/** A content block with its text, reasoning, tool-call arguments or tool-result content redacted. */
export const block = <B extends ContentBlock>(redactor: Redactor, value: B): B => {
  switch (value.type) {
    case "text":
    case "reasoning": {
      const redacted = text(redactor, value.text)
      return redacted === value.text ? value : { ...value, text: redacted }
    }
    case "tool-call": {
      const redacted = text(redactor, value.arguments)
      return redacted === value.arguments ? value : { ...value, arguments: redacted }
    }
    case "tool-result": {
      const redacted = text(redactor, value.content)
      return redacted === value.content ? value : { ...value, content: redacted }
    }
    case "image":
      // Bytes, not text: nothing in them is a credential a redactor knows.
      return value
  }
}

/**
 * A message with its content redacted. Its source (and replay state, which
 * carries signatures and ids, never text) is left as it is.
 */
export const message = (redactor: Redactor, value: Message): Message => {
  let changed = false
  const content = value.content.map((b) => {
    const next = block(redactor, b)
    if (next !== b) changed = true
    return next
  })
  return changed ? { ...value, content } : value
}

type Delta = Extract<StreamChunk, { type: "text-delta" | "reasoning-delta" | "tool-call-delta" }>

const deltaText = (chunk: Delta): string => chunk.type === "tool-call-delta" ? chunk.argumentsDelta : chunk.text

const withDeltaText = (chunk: Delta, value: string): Delta => chunk.type === "tool-call-delta" ? { ...chunk, argumentsDelta: value } : { ...chunk, text: value }

/**
 * A stream of chunks, redacted as it arrives. Deltas are redacted per block
 * (a secret split across a block's deltas is caught); a delta keeps its place
 * even when all of its text is held back (it may carry a tool call's id and
 * name). What a block still holds is released as one more delta of it just
 * before its `block-end`, before a `finish`, and at `end`.
 */
export interface ChunkRedactor {
  readonly step: (chunk: StreamChunk) => ReadonlyArray<StreamChunk>
  /** What is still held when the stream ends without a finish. */
  readonly end: () => ReadonlyArray<StreamChunk>
}

export const chunks = (redactor: Redactor): ChunkRedactor => {
  // Per block index: the last delta seen (its kind, and a tool call's id) and the text held back.
  const open = new Map<number, { last: Delta; held: string }>()

  const release = (index: number): ReadonlyArray<StreamChunk> => {
    const entry = open.get(index)
    open.delete(index)
    if (entry === undefined || entry.held === "") return []
    const rest = withDeltaText(entry.last, text(redactor, entry.held))
    // The tool call's name was already sent with its first delta.
    if (rest.type === "tool-call-delta" && rest.name !== undefined) {
      const { name: _name, ...withoutName } = rest
      return [withoutName]
    }
    return [rest]
  }

  const releaseAll = (): ReadonlyArray<StreamChunk> => [...open.keys()].sort((a, b) => a - b).flatMap((index) => release(index))

  const step = (chunk: StreamChunk): ReadonlyArray<StreamChunk> => {
    if (isEmpty(redactor)) return [chunk]
    switch (chunk.type) {
      case "text-delta":
      case "reasoning-delta":
      case "tool-call-delta": {
        const held = open.get(chunk.index)?.held ?? ""
        const next = feed(redactor, held, deltaText(chunk))
        open.set(chunk.index, { last: chunk, held: next.held })
        return [withDeltaText(chunk, next.out)]
      }
      case "block-end":
        return [...release(chunk.index), json(redactor, chunk)]
      case "finish":
        return [...releaseAll(), json(redactor, chunk)]
      case "block-start":
      case "usage":
        return [chunk]
    }
  }

  return { step, end: releaseAll }
}
