/**
 * What a chunk batch's encoder and decoder both follow to know which block a
 * `block-end-assembled` (or, carried over a request's batches,
 * `block-end-streamed`) back-reference names (see `ChunkBatch`): the blocks
 * the chunks assemble, and exact block equality.
 */
import type { AssistantBlock, BlockType } from "../Content.js"
import type { StreamChunk } from "../StreamChunk.js"

/**
 * What a batch has assembled so far for each index: the block a `block-start`
 * opened, with the deltas of that block's kind appended, until its
 * `block-end`. Encoder and decoder run it over the same chunks, so a
 * back-reference means the same block to both. It is the encoding's own
 * definition, deliberately simpler than the assembler: a chunk it does not
 * fit (a delta of another kind, a block-end with nothing open) is simply
 * stored as it is.
 */
interface Open {
  readonly blockType: BlockType
  text: string
  id: string | undefined
  name: string | undefined
}

export class Tracker {
  private readonly open = new Map<number, Open>()

  /** The block open at `index`, as its chunks so far assemble it, if they make one. */
  assembled(index: number): AssistantBlock | undefined {
    const open = this.open.get(index)
    if (open === undefined) return undefined
    if (open.blockType !== "tool-call") return { type: open.blockType, text: open.text }
    if (open.id === undefined || open.name === undefined) return undefined
    return { type: "tool-call", id: open.id, name: open.name, arguments: open.text }
  }

  /** A copy to advance on trial: the original stays as it is until `adopt`. */
  clone(): Tracker {
    const copy = new Tracker()
    for (const [index, open] of this.open) copy.open.set(index, { ...open })
    return copy
  }

  /** Takes the state of `other` (a clone advanced over a batch that was kept). */
  adopt(other: Tracker): void {
    this.open.clear()
    for (const [index, open] of other.open) this.open.set(index, open)
  }

  observe(chunk: StreamChunk): void {
    switch (chunk.type) {
      case "block-start":
        this.open.set(chunk.index, { blockType: chunk.blockType, text: "", id: undefined, name: undefined })
        return
      case "text-delta":
      case "reasoning-delta": {
        const open = this.open.get(chunk.index)
        if (open !== undefined && open.blockType === (chunk.type === "text-delta" ? "text" : "reasoning")) {
          open.text += chunk.text
        }
        return
      }
      case "tool-call-delta": {
        const open = this.open.get(chunk.index)
        if (open !== undefined && open.blockType === "tool-call") {
          open.text += chunk.argumentsDelta
          open.id = chunk.id
          if (chunk.name !== undefined) open.name = chunk.name
        }
        return
      }
      case "block-end":
        this.open.delete(chunk.index)
        return
      case "usage":
      case "finish":
        return
    }
  }
}

/** Exactly equal blocks: the same keys with the same values. */
export const sameBlock = (a: AssistantBlock, b: AssistantBlock): boolean => {
  if (Object.keys(a).length !== Object.keys(b).length || a.type !== b.type) return false
  switch (a.type) {
    case "text":
    case "reasoning":
      return a.text === (b as typeof a).text
    case "tool-call": {
      const c = b as typeof a
      return a.id === c.id && a.name === c.name && a.arguments === c.arguments
    }
  }
}
