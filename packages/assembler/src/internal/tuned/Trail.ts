/**
 * TUNED FOR BENCHMARK a1 of bench/assembler.bench.ts (one response of 100,000
 * text deltas, ≤ 1.3× the in-run `+=` reference; a2/a3 are measured there
 * too). What the reducer does is defined by the plain reference assembler in
 * `test/ReferenceAssembler.ts`: change behaviour there first; the property test in
 * `test/ReferenceAssembler.prop.test.ts` holds this code equal to it and shows what it
 * must match.
 *
 * The assembler's state: the trail of chunks stepped so far, newest first, each
 * read once when it was stepped.
 *
 * A step reads its chunk once, while it is fresh, and keeps only what assembly
 * needs — what the chunk does, to which index, with what — in one small
 * immutable link pointing at the state it extends. That is the whole cost of a
 * step: no block list is copied, no text is concatenated (a block that ends is
 * superseded by its `block-end`, so its deltas never need joining), and every
 * state stays a value that no later step can change, so an older state may be
 * stepped or finished again. Assembly walks the trail once (`Scan.ts`),
 * stepping over a run of chunks it has no use for (the deltas of a block that
 * ended) in one jump, so that a long answer costs it no more than a short one.
 *
 * Why not a state that carries the open run's text as a string built by `+`
 * (O(1) per append, one link per run instead of one per delta): measured on
 * a1 in the bench's own paired runs, that state cost 1.4–2.6× the reference
 * where this trail cost 1.2–1.3× on the same machine at the same time; the
 * step's own work (a concatenation plus a link that is garbage at the next
 * delta) outweighs the shorter trail, and GC was not the difference.
 *
 * A chunk whose fields cannot be read is ignored: a delta or a start without
 * a readable index and payload leaves no link; the block of a `block-end`, a
 * usage and a finish reason are checked when assembling, where only the ones
 * that matter are read at all (the last usage, the last finish), and a link
 * that fails its check counts as no link.
 */
import type { StreamChunk } from "@turnlog/protocol"
import { isIndex } from "../Guards.js"

// What a link does. The three delta ops double as block kinds.
export const TEXT = 0
export const REASONING = 1
export const TOOL_CALL = 2
/** `value` is the kind the block starts as. */
export const START = 3
/** `value` is the block, authoritative once checked. */
export const END = 4
/** `value` is the usage, once checked. */
export const USAGE = 5
/** `value` is the finish chunk, once its reason is checked. */
export const FINISH = 6
/** The empty trail. */
export const NONE = 7

/** A block kind: what a block's deltas must be to count. */
export type Kind = typeof TEXT | typeof REASONING | typeof TOOL_CALL

// A link packs what it does and to which index into one small integer,
// `index × 16 + op`, plus `MEMO` once its state has been assembled: four
// fields (with the run it ends, see `skip`) instead of six. Every link of a
// response lives until the response is assembled, so the size of a link is
// most of what a step costs.
const MEMO = 8
/** Indices from here on are kept beside the value, so that codes stay small integers. */
export const WIDE = 2 ** 27 - 1

/** The value of a link whose index is too large to pack. */
class Wide {
  // Declared and set in the constructor (see `Link` for why).
  declare readonly index: number
  declare readonly value: unknown
  constructor(index: number, value: unknown) {
    this.index = index
    this.value = value
  }
}

/**
 * The value of a link whose state has been assembled, with that assembly. A
 * plain object, made where it is kept: a class constructed inside `finish`
 * went through the engine's generic construct path, which cost more than the
 * rest of an assembly.
 */
interface Memo {
  readonly value: unknown
  readonly assembled: unknown
}

/**
 * One link. It carries the delta's text for text and reasoning, the chunk for
 * a tool-call delta (id and name are read only when assembling), else as noted
 * on the op. Read it through `opOf`, `indexOf` and `valueOf`.
 */
export class Link {
  // Declared, not initialized: class-field initializers would define each
  // field as `undefined` before the constructor runs, a cost paid per step.
  declare readonly previous: Link | undefined
  /** `index × 16 + op`, `+ MEMO` once assembled: the only change a link ever sees. */
  declare code: number
  declare value: unknown
  /**
   * The link before this link's run: the longest stretch of links up to this
   * one that share its code (a block's deltas usually come in one run).
   * Assembly steps over a run it has no use for in one jump.
   */
  declare readonly skip: Link | undefined

  constructor(previous: Link | undefined, op: number, index: number, value: unknown) {
    this.previous = previous
    let code: number
    if (index < WIDE) {
      code = (index << 4) | op
      this.value = value
    } else {
      code = (WIDE << 4) | op
      this.value = new Wide(index, value)
    }
    this.code = code
    // A run goes on while the code does (a link kept with its assembly shows
    // another code, which only ends a run early).
    this.skip = previous !== undefined && previous.code === code ? previous.skip : previous
  }
}

// Codes stay below 2^31 (wide indices are kept beside the value), so they are
// small integers and unpack with bit operations. The walk reads `code` and
// `value` once per link and unpacks through these, which inline.

export const opOf = (code: number): number => code & 7

/** What the link carries, given its `code` and `value` fields. */
export const valueOf = (code: number, raw: unknown): unknown => {
  const value = (code & MEMO) === 0 ? raw : (raw as Memo).value
  return code >>> 4 === WIDE ? (value as Wide).value : value
}

/** The index the link's chunk was for (0 for usage and finish), given its `code` and `value` fields. */
export const indexOf = (code: number, raw: unknown): number => {
  const index = code >>> 4
  if (index !== WIDE) return index
  return ((code & MEMO) === 0 ? (raw as Wide) : ((raw as Memo).value as Wide)).index
}

/** The assembly kept on `link`, if any. */
export const memoOf = (link: Link): unknown => ((link.code & MEMO) === 0 ? undefined : (link.value as Memo).assembled)

/**
 * Keeps `assembled` on `link`. The link's value is unchanged — it is the same
 * state — only its representation makes room for the result.
 */
export const remember = (link: Link, assembled: unknown): void => {
  if ((link.code & MEMO) !== 0) return
  link.value = { value: link.value, assembled } satisfies Memo
  link.code |= MEMO
}

export const empty = new Link(undefined, NONE, 0, undefined)

const kindOf = (type: unknown): Kind | -1 =>
  type === "text" ? TEXT : type === "reasoning" ? REASONING : type === "tool-call" ? TOOL_CALL : -1

/** The trail after `chunk`: `link` itself when the chunk cannot be read. */
export const extend = (link: Link, chunk: StreamChunk): Link => {
  if (typeof chunk !== "object" || chunk === null) return link
  // Fields are read per case, once the type is known: each read then meets one
  // chunk shape, which keeps the step as cheap as the chunk read itself. The
  // link is made in one place below: one construction site is one the engine
  // inlines, where seven would outgrow what it inlines into a caller's loop.
  let op: number
  let index: unknown = 0
  let value: unknown
  switch (chunk.type) {
    case "text-delta":
      op = TEXT
      index = chunk.index
      value = chunk.text
      if (typeof value !== "string") return link
      break
    case "reasoning-delta":
      op = REASONING
      index = chunk.index
      value = chunk.text
      if (typeof value !== "string") return link
      break
    case "tool-call-delta":
      op = TOOL_CALL
      index = chunk.index
      if (typeof chunk.argumentsDelta !== "string") return link
      value = chunk
      break
    case "block-start":
      op = START
      index = chunk.index
      value = kindOf(chunk.blockType)
      if (value === -1) return link
      break
    case "block-end":
      op = END
      index = chunk.index
      value = chunk.block
      break
    case "usage":
      op = USAGE
      value = chunk.usage
      break
    case "finish":
      op = FINISH
      value = chunk
      break
    default:
      // Compile-time exhaustiveness: a new chunk type must be handled above.
      // At run time, anything else a log may hold is ignored.
      return ignore(chunk, link)
  }
  return isIndex(index) ? new Link(link, op, index, value) : link
}

const ignore = (_chunk: never, link: Link): Link => link
