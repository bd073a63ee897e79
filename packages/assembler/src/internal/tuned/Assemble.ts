/**
 * TUNED FOR BENCHMARK a1 (and a2/a3) of bench/assembler.bench.ts, with
 * `Trail.ts` and `Scan.ts`: a state's assembly from the pass over its trail.
 * Behaviour is defined by the plain reference assembler in
 * `test/ReferenceAssembler.ts`: change it there first; `test/ReferenceAssembler.prop.test.ts`
 * shows what this must match.
 */
import { Envelope } from "@turnlog/envelope"
import type { AssistantBlock, FinishReason, Usage } from "@turnlog/protocol"
import { release, scan, type Slot } from "./Scan.js"
import { type Link, REASONING, TEXT, TOOL_CALL } from "./Trail.js"

/** One assembled response (the public `Assembler.Assembled`). */
export interface Assembled {
  readonly blocks: ReadonlyArray<AssistantBlock>
  readonly replayState?: Envelope.ReplayEnvelope
  readonly finish: FinishReason
  readonly usage?: Usage
}

/** The block a slot stands for: the authoritative one if it ended, else what streamed. */
const blockOf = (slot: Slot): AssistantBlock => {
  const block = slot.closed
  if (block !== undefined) {
    // A fresh plain object: a chunk may carry more than the block's fields.
    return block.type === "tool-call"
      ? { type: "tool-call", id: block.id, name: block.name, arguments: block.arguments }
      : { type: block.type, text: block.text }
  }
  if (slot.kind === TEXT) return { type: "text", text: slot.text }
  if (slot.kind === REASONING) return { type: "reasoning", text: slot.reasoning }
  return {
    type: "tool-call",
    id: slot.id === "" ? `call-${slot.index}` : slot.id,
    name: slot.name,
    arguments: slot.arguments,
  }
}

// The keep mask of the assembly in progress. Assembly is synchronous and the
// envelope does not keep the mask, so one array serves every assembly; only
// its first `streamed` entries are ever read.
const keep: Array<boolean> = []

export const assembleTrail = (head: Link): Assembled => {
  const { count: streamed, finish: chunk, slots, usage } = scan(head)
  const finish: FinishReason = chunk === undefined ? { kind: "stop" } : chunk.reason
  // The one keep/drop decision; blocks and envelope entries both follow it.
  const dropToolCalls = finish.kind === "max-tokens"
  let kept = 0
  for (let i = 0; i < streamed; i++) {
    const slot = slots[i]!
    const keepIt = !dropToolCalls || (slot.closed === undefined ? slot.kind !== TOOL_CALL : slot.closed.type !== "tool-call")
    keep[i] = keepIt
    if (keepIt) kept++
  }
  const blocks = new Array<AssistantBlock>(kept)
  for (let i = 0, j = 0; i < streamed; i++) if (keep[i]) blocks[j++] = blockOf(slots[i]!)
  release()
  const envelope = chunk?.replayState
  const replayState = envelope === undefined ? undefined : Envelope.align(envelope, streamed, keep)
  if (replayState === undefined) return usage === undefined ? { blocks, finish } : { blocks, finish, usage }
  return usage === undefined ? { blocks, replayState, finish } : { blocks, replayState, finish, usage }
}

/** The text and reasoning blocks of `head`, open or ended, whose text is not blank, in order. */
export const interruptedBlocks = (head: Link): ReadonlyArray<AssistantBlock> => {
  const blocks: Array<AssistantBlock> = []
  const { count, slots } = scan(head)
  for (let i = 0; i < count; i++) {
    const block = blockOf(slots[i]!)
    if (block.type !== "tool-call" && block.text.trim() !== "") blocks.push(block)
  }
  release()
  return blocks
}
