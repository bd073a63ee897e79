/**
 * The stream assembler: a reducer from stream chunks to one assistant
 * response.
 *
 * It is where the keep/drop decision is made, once: a `max-tokens` finish
 * drops every streamed tool call (its arguments may be cut off, and it must
 * never run), any other finish drops nothing. The emitted blocks and the
 * replay envelope's per-block entries both derive from that one keep mask, so
 * stored metadata can never describe a block list other than the stored one.
 *
 * Chunk rules: blocks are ordered by the first chunk seen for their index;
 * deltas need no `block-start`; the first `block-end` of an index is
 * authoritative and later chunks for that index are ignored; a delta of
 * another kind than its block's (set by the block's first chunk) is ignored; a
 * tool call that never carried an id or a name gets `call-<index>` and `""`.
 * The last `usage` and the last `finish` chunk win; no finish is a `stop`. A
 * chunk whose fields cannot be read is ignored, so the reducer is total over
 * anything a log can hold.
 *
 * The state is the trail of chunks stepped so far (`internal/Trail.ts`): a
 * step reads its chunk once and adds one small immutable link, so states are
 * values — stepping a state never changes it, and an older state may be
 * stepped or finished again — and `finish` assembles in one backward pass
 * (`internal/Scan.ts`) whose result is kept on the state.
 */
import { Envelope } from "@turnlog/envelope"
import type { AssistantBlock, FinishReason, StreamChunk, Usage } from "@turnlog/protocol"
import { release, scan, type Slot } from "./internal/Scan.js"
import { empty, extend, type Link, memoOf, REASONING, remember, TEXT, TOOL_CALL } from "./internal/Trail.js"

declare const StateBrand: unique symbol
/** An assembly in progress: an opaque value that never changes once made. */
export interface State {
  readonly [StateBrand]: "Assembler.State"
}

/** One assembled response. Optional fields are absent, never `undefined`. */
export interface Assembled {
  readonly blocks: ReadonlyArray<AssistantBlock>
  /** The finish chunk's envelope aligned with `blocks`, when it can be. */
  readonly replayState?: Envelope.ReplayEnvelope
  readonly finish: FinishReason
  readonly usage?: Usage
}

/** The state before any chunk. */
export const initial: State = empty as unknown as State

/** The state after `chunk`. Never throws: an unreadable chunk leaves the state as it was. */
export const step = (state: State, chunk: StreamChunk): State =>
  extend(state as unknown as Link, chunk) as unknown as State

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

const assembleTrail = (head: Link): Assembled => {
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

/**
 * The assembled response. Computed once per state and kept on it (a state
 * never changes), so finishing the same state again returns the same object
 * without assembling a second time. Treat it as read-only: it is shared.
 */
export const finish = (state: State): Assembled => {
  const link = state as unknown as Link
  const kept = memoOf(link)
  if (kept !== undefined) return kept as Assembled
  const assembled = assembleTrail(link)
  remember(link, assembled)
  return assembled
}

/**
 * What a cancelled stream leaves worth keeping: its text and reasoning blocks,
 * open or ended, whose text is not blank, in order. Never a tool call (it did
 * not finish, or was never allowed to run) and never an envelope (the
 * response it would describe did not complete).
 */
export const interrupted = (state: State): ReadonlyArray<AssistantBlock> => {
  const blocks: Array<AssistantBlock> = []
  const { count, slots } = scan(state as unknown as Link)
  for (let i = 0; i < count; i++) {
    const block = blockOf(slots[i]!)
    if (block.type !== "tool-call" && block.text.trim() !== "") blocks.push(block)
  }
  release()
  return blocks
}

/** `finish` of the fold of `step` over `chunks` from `initial`. */
export const assemble = (chunks: Iterable<StreamChunk>): Assembled => {
  let state = initial
  for (const chunk of chunks) state = step(state, chunk)
  return finish(state)
}
