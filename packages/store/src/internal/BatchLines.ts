/**
 * How a version-4 log writes an `assistant/chunks` batch's entries, shorter
 * than the entries themselves, as `{"packed":[…]}` in place of
 * `{"entries":[…]}` (the log's encoding only: a decoded event holds the
 * entries as `ChunkBatch` made them):
 *
 * - a run's `lengths` array as `sizes`, a string of base-64 digits: each
 *   length in five-bit groups, lowest first, a digit of 32 or more saying
 *   another group follows (`ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_`,
 *   so a length under 32 is one character where the array took two or three);
 * - a block whose `block-start`, deltas and `block-end-assembled` are three
 *   consecutive entries of one index as the deltas' entry alone with
 *   `"whole":true`: the start (of the block type its deltas are) before it and
 *   the end after it are implied.
 *
 * `expand(pack(entries))` gives back the entries exactly, key order
 * included; entries that already hold a `sizes` or `whole` key (no batch
 * `ChunkBatch` makes does) are not packed. What `expand` cannot read is
 * named, never guessed.
 */
export type Json = Record<string, unknown>

const DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const VALUE = new Map([...DIGITS].map((digit, value) => [digit, value]))

export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** `value` with the key `from` renamed `to` (and its value `replaced`), the other keys in their order. */
export const renamed = (value: Json, from: string, to: string, replaced: unknown): Json => {
  const out: Json = {}
  for (const key of Object.keys(value)) {
    if (key === from) out[to] = replaced
    else out[key] = value[key]
  }
  return out
}

const isLength = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/** `lengths` as base-64 digits, or `undefined` when one is not a length. */
export const sizesOf = (lengths: ReadonlyArray<unknown>): string | undefined => {
  let out = ""
  for (const length of lengths) {
    if (!isLength(length) || length > 0x3fffffff) return undefined
    let rest = length
    do {
      const group = rest & 31
      rest = rest >>> 5
      out += DIGITS[rest > 0 ? group | 32 : group]
    } while (rest > 0)
  }
  return out
}

/** The lengths `sizes` spells, or why it spells none. */
export const lengthsOf = (sizes: string): Array<number> | string => {
  const lengths: Array<number> = []
  let value = 0
  let shift = 0
  for (const digit of sizes) {
    const group = VALUE.get(digit)
    if (group === undefined) return `"sizes" holds ${JSON.stringify(digit)}, which is not a base-64 digit`
    if (shift > 25) return `"sizes" holds a length of more than six digits`
    value += (group & 31) * 2 ** shift
    if (group & 32) shift += 5
    else {
      lengths.push(value)
      value = 0
      shift = 0
    }
  }
  if (shift > 0) return `"sizes" ends in the middle of a length`
  return lengths
}

/** The block type a delta entry's deltas belong to. */
const blockTypeOf = (type: unknown): "text" | "reasoning" | "tool-call" | undefined => {
  switch (type) {
    case "text-delta":
    case "text-deltas":
      return "text"
    case "reasoning-delta":
    case "reasoning-deltas":
      return "reasoning"
    case "tool-call-delta":
    case "tool-call-deltas":
      return "tool-call"
    default:
      return undefined
  }
}

const keysAre = (value: Json, keys: ReadonlyArray<string>): boolean => {
  const own = Object.keys(value)
  return own.length === keys.length && own.every((key, i) => key === keys[i])
}

/** A run entry with its `lengths` written as `sizes` (other entries as they are). */
const compactRun = (entry: Json): Json => {
  if (!Array.isArray(entry.lengths)) return entry
  const sizes = sizesOf(entry.lengths)
  return sizes === undefined ? entry : renamed(entry, "lengths", "sizes", sizes)
}

/** The entries as a version-4 log writes them (`packed`), or `undefined` when they are to be written as they are. */
export const pack = (entries: ReadonlyArray<unknown>): Array<unknown> | undefined => {
  for (const entry of entries) if (isObject(entry) && ("sizes" in entry || "whole" in entry)) return undefined
  const out: Array<unknown> = []
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]
    if (!isObject(entry)) {
      out.push(entry)
      continue
    }
    const start = entry
    const deltas = entries[i + 1]
    const end = entries[i + 2]
    if (
      start.type === "block-start" && keysAre(start, ["type", "index", "blockType"]) &&
      isObject(deltas) && deltas.index === start.index && blockTypeOf(deltas.type) === start.blockType &&
      isObject(end) && end.type === "block-end-assembled" && end.index === start.index && keysAre(end, ["type", "index"])
    ) {
      out.push({ ...compactRun(deltas), whole: true })
      i += 2
      continue
    }
    out.push(blockTypeOf(entry.type) !== undefined ? compactRun(entry) : entry)
  }
  return out
}

/** The entries a version-4 log's `packed` stands for, or why it stands for none (naming the entry). */
export const expand = (packed: ReadonlyArray<unknown>): Array<unknown> | string => {
  const out: Array<unknown> = []
  for (let i = 0; i < packed.length; i++) {
    const entry = packed[i]
    if (!isObject(entry) || (!("sizes" in entry) && !("whole" in entry))) {
      out.push(entry)
      continue
    }
    const blockType = blockTypeOf(entry.type)
    if (blockType === undefined) return `${i}: a ${String(entry.type)} entry cannot hold "sizes" or "whole"`
    const run: Json = {}
    for (const key of Object.keys(entry)) {
      if (key === "whole") continue
      if (key === "sizes") {
        if (typeof entry.sizes !== "string" || "lengths" in entry) return `${i}: "sizes" must be a string, in place of "lengths"`
        const lengths = lengthsOf(entry.sizes)
        if (typeof lengths === "string") return `${i}: ${lengths}`
        run.lengths = lengths
      } else run[key] = entry[key]
    }
    if (!("whole" in entry)) {
      out.push(run)
      continue
    }
    if (entry.whole !== true) return `${i}: "whole" must be true`
    out.push({ type: "block-start", index: run.index, blockType }, run, { type: "block-end-assembled", index: run.index })
  }
  return out
}

/**
 * A version-4 batch line's `packed` entries (see `BatchLines`) put back as
 * its `entries`, in place; why they cannot be, or `undefined`. Needs no state:
 * a reader that only observed a batch unpacks it when it needs its chunks.
 */
export const unpackLine = (value: unknown): string | undefined => {
  if (!isObject(value) || !isObject(value.data) || !("packed" in value.data)) return undefined
  const data = value.data
  if ("entries" in data) return `data has both "entries" and "packed"`
  if (!Array.isArray(data.packed)) return `data.packed is not an array`
  const entries = expand(data.packed)
  if (typeof entries === "string") return `data.packed.${entries}`
  value.data = renamed(data, "packed", "entries", entries)
  return undefined
}
