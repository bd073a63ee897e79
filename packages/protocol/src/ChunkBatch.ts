/**
 * A batch of one request's consecutive raw chunks in a compact, lossless
 * encoding: the payload of the version-2 `assistant/chunks` event.
 *
 * Version 1 logged each raw chunk as its own event, and stored the answer three
 * times (the deltas, the `block-end` chunk's full block, the assembled
 * message). A batch stores the same chunks as entries:
 *
 * - a chunk as it is (any chunk may always be stored this way);
 * - a run of two or more consecutive `text-delta` (or `reasoning-delta`)
 *   chunks of one index as one entry: their texts joined, and the length of
 *   each (in UTF-16 code units, as JavaScript counts them) to cut them apart;
 * - a run of two or more consecutive `tool-call-delta` chunks of one index
 *   with the same `id` and the same `name` (or none) as one entry: their
 *   argument deltas joined, and the length of each;
 * - a `block-end` whose block is exactly what the batch's chunks of its index
 *   assemble to (see `internal/BatchTracker.ts`) as a back-reference without the block;
 * - (version 3) a `block-end` whose block started in an earlier batch of the
 *   same request, and is exactly what the request's chunks of its index
 *   assemble to, as a `block-end-streamed` back-reference: a long answer
 *   streamed over several batches is not stored again in its block-end. Such a
 *   batch is encoded and decoded with the `Tracker` of its request carried
 *   over from the request's earlier batches (`encode(chunks, carried)`,
 *   `decode(entries, carried)`); without them it cannot be decoded, and says so.
 *
 * `decode(encode(chunks))` gives back exactly `chunks`; a property test holds
 * it for any chunk sequence, matching or not. A back-reference that names
 * nothing the batch assembled is damage: the schema refuses it.
 */
import { Either, Schema } from "effect"
import type { BlockType } from "./Content.js"
import { sameBlock, Tracker } from "./internal/BatchTracker.js"

export { Tracker }
import { StreamChunk } from "./StreamChunk.js"

const Index = Schema.Number.pipe(Schema.int(), Schema.nonNegative())
/** The length of each delta of a run, in order: they add up to the joined text's length. */
const Lengths = Schema.Array(Index).pipe(Schema.minItems(1))

export const TextDeltas = Schema.Struct({ type: Schema.Literal("text-deltas"), index: Index, text: Schema.String, lengths: Lengths })
export const ReasoningDeltas = Schema.Struct({
  type: Schema.Literal("reasoning-deltas"),
  index: Index,
  text: Schema.String,
  lengths: Lengths,
})
export const ToolCallDeltas = Schema.Struct({
  type: Schema.Literal("tool-call-deltas"),
  index: Index,
  id: Schema.String,
  name: Schema.optionalWith(Schema.String, { exact: true }),
  arguments: Schema.String,
  lengths: Lengths,
})
/** A `block-end` whose block is the one its index assembled in this batch. */
export const BlockEndAssembled = Schema.Struct({ type: Schema.Literal("block-end-assembled"), index: Index })

/** A `block-end` whose block is the one its index assembled over this request's batches (version 3). */
export const BlockEndStreamed = Schema.Struct({ type: Schema.Literal("block-end-streamed"), index: Index })

export const Entry = Schema.Union(StreamChunk, TextDeltas, ReasoningDeltas, ToolCallDeltas, BlockEndAssembled, BlockEndStreamed)
export type Entry = typeof Entry.Type

type Delta = Extract<StreamChunk, { readonly type: "text-delta" | "reasoning-delta" | "tool-call-delta" }>

/** Whether `next` continues the run that `first` starts. */
const continues = (first: Delta, next: StreamChunk): boolean => {
  if (next.type !== first.type || next.index !== first.index) return false
  if (first.type !== "tool-call-delta") return true
  const call = next as typeof first
  return call.id === first.id && call.name === first.name
}

const deltaText = (chunk: Delta): string => chunk.type === "tool-call-delta" ? chunk.argumentsDelta : chunk.text

const runEntry = (run: ReadonlyArray<Delta>): Entry => {
  const first = run[0]!
  let text = ""
  const lengths: Array<number> = []
  for (const chunk of run) {
    const part = deltaText(chunk)
    text += part
    lengths.push(part.length)
  }
  switch (first.type) {
    case "text-delta":
      return { type: "text-deltas", index: first.index, text, lengths }
    case "reasoning-delta":
      return { type: "reasoning-deltas", index: first.index, text, lengths }
    case "tool-call-delta":
      return {
        type: "tool-call-deltas",
        index: first.index,
        id: first.id,
        ...(first.name !== undefined ? { name: first.name } : {}),
        arguments: text,
        lengths,
      }
  }
}

/** The pieces of a run's joined text, cut at its lengths. */
const cut = (text: string, lengths: ReadonlyArray<number>): Array<string> => {
  const parts: Array<string> = []
  let at = 0
  for (const length of lengths) {
    parts.push(text.slice(at, at + length))
    at += length
  }
  return parts
}

const total = (lengths: ReadonlyArray<number>): number => {
  let sum = 0
  for (const length of lengths) sum += length
  return sum
}

/**
 * The entries that store `chunks`. `carried`: the tracker of the request's
 * earlier batches (version 3), which this batch's chunks advance; without it
 * the batch stands alone (version 2).
 */
export const encode = (chunks: ReadonlyArray<StreamChunk>, carried?: Tracker): Array<Entry> => {
  const tracker = carried ?? new Tracker()
  // The indexes whose block started in this batch: their ends are `block-end-assembled`.
  const started = new Set<number>()
  const entries: Array<Entry> = []
  let i = 0
  while (i < chunks.length) {
    const chunk = chunks[i]!
    if (chunk.type === "text-delta" || chunk.type === "reasoning-delta" || chunk.type === "tool-call-delta") {
      let end = i + 1
      while (end < chunks.length && continues(chunk, chunks[end]!)) end++
      const run = chunks.slice(i, end) as Array<Delta>
      entries.push(run.length === 1 ? chunk : runEntry(run))
      for (const delta of run) tracker.observe(delta)
      i = end
      continue
    }
    if (chunk.type === "block-end") {
      const assembled = tracker.assembled(chunk.index)
      entries.push(
        assembled === undefined || !sameBlock(chunk.block, assembled)
          ? chunk
          : started.has(chunk.index)
          ? { type: "block-end-assembled", index: chunk.index }
          : { type: "block-end-streamed", index: chunk.index },
      )
    } else {
      if (chunk.type === "block-start") started.add(chunk.index)
      entries.push(chunk)
    }
    tracker.observe(chunk)
    i++
  }
  return entries
}

/** Why a batch cannot be decoded: a back-reference at `entry` to a block the batch did not assemble. */
export const unresolved = (entry: number, index: number): string =>
  `entry ${entry} is a block-end-assembled of index ${index}, but no block of that index is assembled there`

/** Why a batch cannot be decoded: a back-reference at `entry` to a block no earlier batch of the request started. */
export const unstreamed = (entry: number, index: number): string =>
  `entry ${entry} is a block-end-streamed of index ${index}, but no earlier batch of its request started a block of that index`

/** Why a batch cannot be decoded: a back-reference across batches at `entry` to a block this batch started. */
export const streamedHere = (entry: number, index: number): string =>
  `entry ${entry} is a block-end-streamed of index ${index}, but that block started in the same batch`

/** Why a batch cannot be decoded: a run at `entry` whose lengths do not cut its text exactly. */
export const miscut = (entry: number, length: number, sum: number): string =>
  `entry ${entry} is a run of ${length} characters whose delta lengths add up to ${sum}`

/**
 * The chunks a batch stores, or why it is damaged. `carried`: the tracker of
 * the request's earlier batches (see `encode`), advanced by this batch only
 * when it decodes.
 */
export const decode = (entries: ReadonlyArray<Entry>, carried?: Tracker): Either.Either<Array<StreamChunk>, string> => {
  const tracker = carried === undefined ? new Tracker() : carried.clone()
  const chunks: Array<StreamChunk> = []
  const put = (chunk: StreamChunk) => {
    tracker.observe(chunk)
    chunks.push(chunk)
  }
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!
    switch (entry.type) {
      case "text-deltas":
      case "reasoning-deltas": {
        const sum = total(entry.lengths)
        if (sum !== entry.text.length) return Either.left(miscut(e, entry.text.length, sum))
        const type = entry.type === "text-deltas" ? "text-delta" : "reasoning-delta"
        for (const text of cut(entry.text, entry.lengths)) put({ type, index: entry.index, text })
        break
      }
      case "tool-call-deltas": {
        const sum = total(entry.lengths)
        if (sum !== entry.arguments.length) return Either.left(miscut(e, entry.arguments.length, sum))
        for (const argumentsDelta of cut(entry.arguments, entry.lengths)) {
          put(
            entry.name !== undefined
              ? { type: "tool-call-delta", index: entry.index, id: entry.id, name: entry.name, argumentsDelta }
              : { type: "tool-call-delta", index: entry.index, id: entry.id, argumentsDelta },
          )
        }
        break
      }
      case "block-end-assembled": {
        const block = tracker.assembled(entry.index)
        if (block === undefined) return Either.left(unresolved(e, entry.index))
        put({ type: "block-end", index: entry.index, block })
        break
      }
      case "block-end-streamed": {
        const block = tracker.assembled(entry.index)
        if (block === undefined) return Either.left(unstreamed(e, entry.index))
        put({ type: "block-end", index: entry.index, block })
        break
      }
      default:
        put(entry)
    }
  }
  carried?.adopt(tracker)
  return Either.right(chunks)
}

/**
 * Why a batch cannot be decoded (its first miscut run or unresolved
 * back-reference), without building its chunks: loading checks every batch,
 * and this only adds up lengths and tracks which blocks are open, never their
 * text. Agrees with `decode`: a property test pins it.
 */
export const firstDamage = (entries: ReadonlyArray<Entry>): string | undefined => {
  // Per open index: its kind, and for a tool call whether an id and a name were seen.
  const open = new Map<number, { readonly blockType: BlockType; id: boolean; name: boolean }>()
  const seeCall = (index: number, name: boolean) => {
    const block = open.get(index)
    if (block !== undefined && block.blockType === "tool-call") {
      block.id = true
      if (name) block.name = true
    }
  }
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!
    switch (entry.type) {
      case "block-start":
        open.set(entry.index, { blockType: entry.blockType, id: false, name: false })
        break
      case "tool-call-delta":
        seeCall(entry.index, entry.name !== undefined)
        break
      case "tool-call-deltas": {
        const sum = total(entry.lengths)
        if (sum !== entry.arguments.length) return miscut(e, entry.arguments.length, sum)
        seeCall(entry.index, entry.name !== undefined)
        break
      }
      case "text-deltas":
      case "reasoning-deltas": {
        const sum = total(entry.lengths)
        if (sum !== entry.text.length) return miscut(e, entry.text.length, sum)
        break
      }
      case "block-end":
        open.delete(entry.index)
        break
      case "block-end-assembled": {
        const block = open.get(entry.index)
        if (block === undefined || (block.blockType === "tool-call" && !(block.id && block.name))) {
          return unresolved(e, entry.index)
        }
        open.delete(entry.index)
        break
      }
      case "block-end-streamed":
        // What it names is in earlier batches: `decode` with their tracker (and `doctor`) resolves it.
        if (open.has(entry.index)) return streamedHere(e, entry.index)
        break
      default:
        break
    }
  }
  return undefined
}

/** The batch payload: its entries, non-empty, every run cut exactly, every back-reference resolved. */
export const Entries = Schema.Array(Entry).pipe(
  Schema.minItems(1),
  Schema.filter((entries) => firstDamage(entries) ?? true),
)
