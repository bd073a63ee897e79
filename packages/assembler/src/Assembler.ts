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
 * The state is the trail of chunks stepped so far (`internal/tuned/Trail.ts`):
 * a step reads its chunk once and makes one small immutable link, so states are values —
 * stepping a state never changes it, and an older state may be stepped or
 * finished again — and `finish` assembles in one backward pass
 * (`internal/tuned/Scan.ts`) whose result is kept on the state.
 *
 * `internal/tuned/` is tuned for bench/assembler.bench.ts (a1, a2, a3). The
 * behaviour above is spelled out plainly in `test/ReferenceAssembler.ts`, which a
 * property test holds the tuned code equal to: change behaviour there first.
 */
import type { Envelope } from "@turnlog/envelope"
import type { AssistantBlock, FinishReason, StreamChunk, Usage } from "@turnlog/protocol"
import { assembleTrail, interruptedBlocks } from "./internal/tuned/Assemble.js"
import { empty, extend, type Link, memoOf, remember } from "./internal/tuned/Trail.js"

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
export const step = (state: State, chunk: StreamChunk): State => extend(state as unknown as Link, chunk) as unknown as State

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
export const interrupted = (state: State): ReadonlyArray<AssistantBlock> => interruptedBlocks(state as unknown as Link)

/** `finish` of the fold of `step` over `chunks` from `initial`. */
export const assemble = (chunks: Iterable<StreamChunk>): Assembled => {
  let state = initial
  for (const chunk of chunks) state = step(state, chunk)
  return finish(state)
}
