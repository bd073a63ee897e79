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
 * What a step costs is mostly the bytes it writes: a round of a1 runs
 * between collections, so each link is fresh memory the step fills. A link
 * is three fields (48 bytes on a 64-bit engine, against the 32 of the cons
 * string a `+=` makes), and a1 measures about 1.0–1.1× its reference. Each
 * field more cost about 8% (the earlier four-field link, with a field for
 * the start of its run, measured 1.22–1.42×).
 *
 * Why not a state that carries the open run's text as a string built by `+`
 * (O(1) per append, one link per run instead of one per delta): measured on
 * a1 in the bench's own paired runs, that state cost 1.4–2.6× the reference;
 * the step then makes a concatenation and a state object both, which is more
 * to write than one link. An array per run, shared by the states on it, and
 * runs of small arrays cost 13.7× and 2.2–2.5×.
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
// `index × 16 + op`, plus `MEMO` once its state has been assembled. Every link
// of a response lives until the response is assembled, so the size of a link
// is most of what a step costs: a link has three fields, and a link that goes
// on its run (see `Link.code`) stores the run's first link instead of a code.
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
 * on the op. Read it through `codeOf`, `opOf`, `indexOf` and `valueOf`.
 */
export class Link {
  // Declared, not initialized: class-field initializers would define each
  // field as `undefined` before the constructor runs, a cost paid per step.
  declare readonly previous: Link | undefined
  /**
   * `index × 16 + op`, `+ MEMO` once assembled; or, for a link that goes on a
   * run — the links in a row that share one code, as a block's deltas usually
   * come — the run's first link, whose code it shares. Assembly steps over a
   * run it has no use for in one jump, to the link before that first one.
   * Keeping the assembly is the only change a link ever sees (`remember`).
   */
  declare code: number | Link
  declare value: unknown

  constructor(previous: Link | undefined, code: number | Link, value: unknown) {
    this.previous = previous
    this.code = code
    this.value = value
  }
}

// Codes stay below 2^31 (wide indices are kept beside the value), so they are
// small integers and unpack with bit operations. The walk reads `code` and
// `value` once per link and unpacks through these, which inline.

/**
 * The link's code, given its `code` field. A link on a run has its first
 * link's code, less the mark of that link's own assembly.
 */
export const codeOf = (code: number | Link): number => (typeof code === "number" ? code : (code.code as number) & ~MEMO)

/** The first link of the run `link` goes on (`link` itself if it starts one), given its `code` field. */
export const runOf = (link: Link, code: number | Link): Link => (typeof code === "number" ? link : code)

export const opOf = (code: number): number => code & 7

/** What the link carries, given its code (`codeOf`) and `value` field. */
export const valueOf = (code: number, raw: unknown): unknown => {
  const value = (code & MEMO) === 0 ? raw : (raw as Memo).value
  return code >>> 4 === WIDE ? (value as Wide).value : value
}

/** The index the link's chunk was for (0 for usage and finish), given its code (`codeOf`) and `value` field. */
export const indexOf = (code: number, raw: unknown): number => {
  const index = code >>> 4
  if (index !== WIDE) return index
  return ((code & MEMO) === 0 ? (raw as Wide) : ((raw as Memo).value as Wide)).index
}

/** The assembly kept on `link`, if any. */
export const memoOf = (link: Link): unknown => {
  const code = link.code
  return typeof code === "number" && (code & MEMO) !== 0 ? (link.value as Memo).assembled : undefined
}

/**
 * Keeps `assembled` on `link`. The link's value is unchanged — it is the same
 * state — only its representation makes room for the result: a link on a run
 * takes its code from the run's first link, which is the same code.
 */
export const remember = (link: Link, assembled: unknown): void => {
  const field = link.code
  if (typeof field === "number" && (field & MEMO) !== 0) return
  link.value = { value: link.value, assembled } satisfies Memo
  link.code = codeOf(field) | MEMO
}

export const empty = new Link(undefined, NONE, undefined)

const kindOf = (type: unknown): Kind | -1 => type === "text" ? TEXT : type === "reasoning" ? REASONING : type === "tool-call" ? TOOL_CALL : -1

// The step's own copies of the ops, `WIDE` and `isIndex`. An exported or
// imported binding is a module cell that compiled code reads at each use,
// where a constant of the module's own is folded in: measured on a1, the
// copies save 5-10%.
const OWN_TEXT = TEXT
const OWN_REASONING = REASONING
const OWN_TOOL_CALL = TOOL_CALL
const OWN_START = START
const OWN_END = END
const OWN_USAGE = USAGE
const OWN_FINISH = FINISH
const OWN_WIDE = WIDE
const ownIsIndex = isIndex

/** The trail after `chunk`: `link` itself when the chunk cannot be read. */
export const extend = (link: Link, chunk: StreamChunk): Link => {
  if (typeof chunk !== "object" || chunk === null) return link
  // Fields are read per case, once the type is known: each read then meets one
  // chunk shape, which keeps the step as cheap as the chunk read itself. The
  // link is made in two places below, not in each case: a few construction
  // sites are what the engine inlines, where seven would outgrow what it
  // inlines into a caller's loop.
  let op: number
  let index: unknown = 0
  let value: unknown
  switch (chunk.type) {
    case "text-delta":
      op = OWN_TEXT
      index = chunk.index
      value = chunk.text
      if (typeof value !== "string") return link
      break
    case "reasoning-delta":
      op = OWN_REASONING
      index = chunk.index
      value = chunk.text
      if (typeof value !== "string") return link
      break
    case "tool-call-delta":
      op = OWN_TOOL_CALL
      index = chunk.index
      if (typeof chunk.argumentsDelta !== "string") return link
      value = chunk
      break
    case "block-start":
      op = OWN_START
      index = chunk.index
      value = kindOf(chunk.blockType)
      if (value === -1) return link
      break
    case "block-end":
      op = OWN_END
      index = chunk.index
      value = chunk.block
      break
    case "usage":
      op = OWN_USAGE
      value = chunk.usage
      break
    case "finish":
      op = OWN_FINISH
      value = chunk
      break
    default:
      // Compile-time exhaustiveness: a new chunk type must be handled above.
      // At run time, anything else a log may hold is ignored.
      return ignore(chunk, link)
  }
  if (!ownIsIndex(index)) return link
  let code = (OWN_WIDE << 4) | op
  if (index < OWN_WIDE) {
    code = (index << 4) | op
    // Going on the run `link` is on: the new link points at the run's first
    // link instead of a code. (Spelled out here rather than through `runOf`,
    // and made at its own site: measured on a1, the helper and a site shared
    // with the code case cost 5-10%.)
    const field = link.code
    const run = typeof field === "number" ? link : field
    if (run.code === code) return new Link(link, run, value)
  } else {
    value = new Wide(index, value)
  }
  return new Link(link, code, value)
}

const ignore = (_chunk: never, link: Link): Link => link
