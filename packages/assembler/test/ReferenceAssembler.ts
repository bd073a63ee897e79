/**
 * The reference assembler: what `Assembler.finish` and `Assembler.interrupted`
 * must return for a list of chunks, written to be read, not to be fast.
 *
 * The package's reducer (`src/internal/tuned/`) is tuned for the benchmark in
 * `bench/assembler.bench.ts` and is hard to read: it keeps a trail of links and
 * assembles it backwards. This file is the rule book it is held to.
 * To change what the assembler does, change it here first; the property test
 * `ReferenceAssembler.prop.test.ts` then shows what the tuned code must match.
 *
 * One forward pass over the chunks, keeping per block index what streamed:
 *
 * - blocks are ordered by the first readable chunk for their index; deltas
 *   need no `block-start`;
 * - a block's kind is its first chunk's; a delta of another kind is ignored;
 * - the first readable `block-end` of an index is the block, whatever its
 *   deltas said; later chunks for that index are ignored;
 * - a tool call's id and name are the first non-empty ones carried, else
 *   `call-<index>` and `""`;
 * - the last readable `usage` and `finish` win; no finish is a `stop`;
 * - a chunk whose fields cannot be read counts as no chunk at all.
 *
 * Then the one keep/drop decision: a `max-tokens` finish drops every tool
 * call, open or ended; the blocks and the envelope's entries follow that one
 * mask. Entries that do not number the streamed blocks discard the envelope.
 */
import type { AssistantBlock, BlockType, FinishChunk, FinishReason, ReplayEnvelope, Usage } from "@turnlog/protocol"
import { isAssistantBlock, isFinishReason, isIndex, isUsage } from "../src/internal/Guards.js"

/** What `Assembler.finish` returns. */
export interface Assembled {
  readonly blocks: ReadonlyArray<AssistantBlock>
  readonly replayState?: ReplayEnvelope
  readonly finish: FinishReason
  readonly usage?: Usage
}

interface Streamed {
  readonly index: number
  readonly kind: BlockType
  /** The first readable block-end's block. */
  ended: AssistantBlock | undefined
  /** The deltas of the block's kind that came before it ended, in order. */
  readonly deltas: Array<string>
  id: string | undefined
  name: string | undefined
}

interface Read {
  /** In first-seen order. */
  readonly streamed: ReadonlyArray<Streamed>
  readonly usage: Usage | undefined
  readonly finish: FinishChunk | undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const isNonEmptyString = (value: unknown): value is string => typeof value === "string" && value !== ""

const isBlockType = (value: unknown): value is BlockType => value === "text" || value === "reasoning" || value === "tool-call"

const read = (chunks: ReadonlyArray<unknown>): Read => {
  const streamed: Array<Streamed> = []
  const byIndex = new Map<number, Streamed>()
  let usage: Usage | undefined
  let finish: FinishChunk | undefined
  /** The block of `index`, made with `kind` if this is its first chunk. */
  const blockAt = (index: number, kind: BlockType): Streamed => {
    let block = byIndex.get(index)
    if (block === undefined) {
      block = { index, kind, ended: undefined, deltas: [], id: undefined, name: undefined }
      byIndex.set(index, block)
      streamed.push(block)
    }
    return block
  }
  /** The open block of `index` if a delta of `kind` counts for it. */
  const openFor = (index: number, kind: BlockType): Streamed | undefined => {
    const block = blockAt(index, kind)
    return block.ended === undefined && block.kind === kind ? block : undefined
  }
  for (const chunk of chunks) {
    if (!isRecord(chunk)) continue
    switch (chunk.type) {
      case "text-delta":
      case "reasoning-delta": {
        if (!isIndex(chunk.index) || typeof chunk.text !== "string") break
        openFor(chunk.index, chunk.type === "text-delta" ? "text" : "reasoning")?.deltas.push(chunk.text)
        break
      }
      case "tool-call-delta": {
        if (!isIndex(chunk.index) || typeof chunk.argumentsDelta !== "string") break
        const block = openFor(chunk.index, "tool-call")
        if (block === undefined) break
        block.deltas.push(chunk.argumentsDelta)
        if (block.id === undefined && isNonEmptyString(chunk.id)) block.id = chunk.id
        if (block.name === undefined && isNonEmptyString(chunk.name)) block.name = chunk.name
        break
      }
      case "block-start":
        if (isIndex(chunk.index) && isBlockType(chunk.blockType)) blockAt(chunk.index, chunk.blockType)
        break
      case "block-end": {
        if (!isIndex(chunk.index) || !isAssistantBlock(chunk.block)) break
        const block = blockAt(chunk.index, chunk.block.type)
        if (block.ended === undefined) block.ended = chunk.block
        break
      }
      case "usage":
        if (isUsage(chunk.usage)) usage = chunk.usage
        break
      case "finish":
        if (isFinishReason(chunk.reason)) finish = chunk as unknown as FinishChunk
        break
    }
  }
  return { streamed, usage, finish }
}

// The engine's longest string (V8, 64-bit). Text that would be longer keeps
// its latest deltas that fit: each delta, from the last back, is kept if the
// text still fits with it.
const MAX_TEXT = 536_870_888
const joined = (deltas: ReadonlyArray<string>): string => {
  let text = ""
  for (let i = deltas.length - 1; i >= 0; i--) {
    if (deltas[i]!.length + text.length <= MAX_TEXT) text = deltas[i]! + text
  }
  return text
}

const typeOf = (block: Streamed): BlockType => block.ended?.type ?? block.kind

/** The block as emitted: a fresh object with only the block's fields. */
const emitted = (block: Streamed): AssistantBlock => {
  const ended = block.ended
  if (ended !== undefined) {
    return ended.type === "tool-call"
      ? { type: "tool-call", id: ended.id, name: ended.name, arguments: ended.arguments }
      : { type: ended.type, text: ended.text }
  }
  if (block.kind === "tool-call") {
    return {
      type: "tool-call",
      id: block.id ?? `call-${block.index}`,
      name: block.name ?? "",
      arguments: joined(block.deltas),
    }
  }
  return { type: block.kind, text: joined(block.deltas) }
}

/** The envelope for the kept blocks, or undefined when it cannot be aligned. */
const aligned = (envelope: unknown, keep: ReadonlyArray<boolean>): ReplayEnvelope | undefined => {
  if (!isRecord(envelope)) return undefined
  const entries = envelope.blocks
  if (entries === undefined) return envelope as unknown as ReplayEnvelope
  if (!Array.isArray(entries) || entries.length !== keep.length) return undefined
  if (keep.every((kept) => kept)) return envelope as unknown as ReplayEnvelope
  return { response: envelope.response, blocks: entries.filter((_, i) => keep[i]) }
}

/** What `Assembler.finish` must return after stepping `chunks` from `initial`. */
export const assemble = (chunks: ReadonlyArray<unknown>): Assembled => {
  const { finish: finishChunk, streamed, usage } = read(chunks)
  const finish: FinishReason = finishChunk?.reason ?? { kind: "stop" }
  // The one keep/drop decision.
  const keep = streamed.map((block) => !(finish.kind === "max-tokens" && typeOf(block) === "tool-call"))
  const blocks = streamed.filter((_, i) => keep[i]).map(emitted)
  const replayState = finishChunk?.replayState === undefined ? undefined : aligned(finishChunk.replayState, keep)
  return {
    blocks,
    ...(replayState === undefined ? {} : { replayState }),
    finish,
    ...(usage === undefined ? {} : { usage }),
  }
}

/** What `Assembler.interrupted` must return after stepping `chunks` from `initial`. */
export const interrupted = (chunks: ReadonlyArray<unknown>): ReadonlyArray<AssistantBlock> =>
  read(chunks).streamed.map(emitted).filter((block) => block.type !== "tool-call" && block.text.trim() !== "")

/** How many blocks `chunks` streamed, before any drop: what an aligned envelope numbers. */
export const streamedCount = (chunks: ReadonlyArray<unknown>): number => read(chunks).streamed.length
