/**
 * TUNED FOR BENCHMARK a1 of bench/assembler.bench.ts (one response of 100,000
 * text deltas, ≤ 1.3× the in-run `+=` reference; a2/a3 are measured there
 * too). What the reducer does is defined by the plain reference assembler in
 * `test/ReferenceAssembler.ts`: change behaviour there first; the property test in
 * `test/ReferenceAssembler.prop.test.ts` holds this code equal to it and shows what it
 * must match.
 *
 * Assembly's one pass over a trail (`Trail.ts`), newest link first.
 *
 * Every chunk rule has a backward reading that needs no look-ahead:
 *
 * - first-seen order: the last time the walk meets an index is its first
 *   appearance, so each block keeps the position of the last link met;
 * - the first `block-end` wins: the last one met wins, and once one is met the
 *   block's deltas no longer matter — those after it are ignored, those before
 *   it superseded — so nothing is concatenated for a block that ended, and a
 *   run of its earlier deltas and starts is stepped over by their codes alone;
 * - an open block's kind is its first chunk's: the last link met sets it, and
 *   deltas are gathered per kind until then (a delta of another kind than its
 *   block's does not count);
 * - an open block's text is its deltas in order: each delta met is prepended;
 * - the first id and name carried, the last `usage`, the last `finish`: met
 *   last, first and first.
 *
 * A link whose block, usage or finish reason fails its check is passed over
 * as if its chunk had never come.
 */
import type { AssistantBlock, FinishChunk, StreamChunk, Usage } from "@turnlog/protocol"
import * as Guards from "../Guards.js"
import * as Trail from "./Trail.js"
import type { Kind, Link } from "./Trail.js"

// Module-local copies of what the walk uses from `Trail.ts` and the guards:
// an imported binding is a module cell that compiled code reads at each use,
// where a constant of the module's own is folded in (see `extend`).
const { codeOf, END, FINISH, indexOf, NONE, opOf, REASONING, runOf, START, TEXT, TOOL_CALL, USAGE, valueOf, WIDE } = Trail
const { isAssistantBlock, isFinishReason, isUsage } = Guards

// V8 cannot build a longer string (2^29 - 24 on 64-bit builds); past it `+`
// throws and assembly must not, so a delta that would cross it is left out.
const MAX_TEXT = 536_870_888

/** Everything the walk learns about one streamed index. */
export class Slot {
  // Declared and set in the constructor (see `Link` for why).
  declare index: number
  /** Links met when this index was last met: the largest is the earliest chunk. */
  declare first: number
  declare kind: Kind
  /** The earliest `block-end`'s block, once met. */
  declare closed: AssistantBlock | undefined
  declare text: string
  declare reasoning: string
  declare arguments: string
  declare id: string
  declare name: string

  constructor() {
    this.index = 0
    this.first = 0
    this.kind = TEXT
    this.closed = undefined
    this.text =
      this.reasoning =
      this.arguments =
      this.id =
      this.name =
        ""
  }

  reset(index: number): Slot {
    this.index = index
    this.closed = undefined
    this.text =
      this.reasoning =
      this.arguments =
      this.id =
      this.name =
        ""
    return this
  }
}

/**
 * What the last pass found: its first `count` slots, in first-seen order, and
 * the last readable finish and usage. Assembly is synchronous and never
 * re-entered, so one pass object and one set of slots serve every pass; it is
 * valid until the next pass, and `release` lets go of what it holds.
 */
export class Pass {
  readonly slots: Array<Slot> = []
  count = 0
  finish: FinishChunk | undefined = undefined
  usage: Usage | undefined = undefined
}

const pass = new Pass()
let byIndex: Map<number, Slot> | undefined
// Past this many blocks, lookups go through a map, so that a pathological
// stream with thousands of indices stays linear.
const MANY = 16

const prepend = (delta: string, text: string): string => delta.length + text.length > MAX_TEXT ? text : delta + text

/** The slot of `index` (a new one if unmet), among the `count` in use. */
const slotOf = (pool: Array<Slot>, index: number, count: number): Slot => {
  if (byIndex === undefined) {
    for (let i = count - 1; i >= 0; i--) {
      const slot = pool[i]!
      if (slot.index === index) return slot
    }
    if (count >= MANY) byIndex = new Map(pool.slice(0, count).map((slot) => [slot.index, slot]))
  } else {
    const slot = byIndex.get(index)
    if (slot !== undefined) return slot
  }
  if (count === pool.length) pool.push(new Slot())
  const slot = pool[count]!.reset(index)
  byIndex?.set(index, slot)
  return slot
}

export const scan = (head: Link): Pass => {
  const pool = pass.slots
  byIndex = undefined
  let count = 0
  let met = 0
  let last: Slot | undefined
  let finish: FinishChunk | undefined
  let usage: Usage | undefined
  let next: Link
  for (let link = head;; link = next) {
    next = link.previous!
    const code = codeOf(link.code)
    const raw = link.value
    const op = opOf(code)
    if (op === NONE) break
    const value = valueOf(code, raw)
    if (op === USAGE) {
      if (usage === undefined && isUsage(value)) usage = value
      continue
    }
    if (op === FINISH) {
      if (finish === undefined && isFinishReason((value as FinishChunk).reason)) finish = value as FinishChunk
      continue
    }
    // An unreadable block-end counts as no chunk at all.
    if (op === END && !isAssistantBlock(value)) continue
    const index = indexOf(code, raw)
    let slot = last
    if (slot === undefined || slot.index !== index) {
      slot = last = slotOf(pool, index, count)
      if (slot === pool[count]) count++
    }
    slot.first = ++met
    switch (op) {
      case TEXT:
        slot.kind = TEXT
        if (slot.closed === undefined) slot.text = prepend(value as string, slot.text)
        break
      case REASONING:
        slot.kind = REASONING
        if (slot.closed === undefined) slot.reasoning = prepend(value as string, slot.reasoning)
        break
      case TOOL_CALL: {
        slot.kind = TOOL_CALL
        if (slot.closed !== undefined) break
        const { argumentsDelta, id, name } = value as Extract<StreamChunk, { readonly type: "tool-call-delta" }>
        slot.arguments = prepend(argumentsDelta, slot.arguments)
        if (typeof id === "string" && id !== "") slot.id = id
        if (typeof name === "string" && name !== "") slot.name = name
        break
      }
      case START:
        slot.kind = value as Kind
        break
      case END: {
        const block = value as AssistantBlock
        slot.kind = block.type === "text" ? TEXT : block.type === "reasoning" ? REASONING : TOOL_CALL
        slot.closed = block
        // What later deltas gathered is superseded: let it go.
        slot.text = slot.reasoning = slot.arguments = ""
        break
      }
    }
    if (slot.closed !== undefined && index < WIDE) {
      // The deltas and starts of an ended block before this link no longer
      // count (its kind and content are its block-end's): only their place
      // does, so they are stepped over a run at a time (see `Link.code`),
      // reading codes alone. A block-end among them stops the jumps: the
      // earliest one wins.
      for (;;) {
        const field = next.code
        const code = codeOf(field)
        if (code >>> 4 !== index || (code & 7) >= END) break
        next = runOf(next, field).previous!
        met++
      }
      slot.first = met
    }
  }
  byIndex = undefined
  inFirstSeenOrder(pool, count)
  pass.count = count
  pass.finish = finish
  pass.usage = usage
  return pass
}

/** Orders the first `n` slots by each one's earliest chunk; they were made newest-first. */
const inFirstSeenOrder = (slots: Array<Slot>, n: number): void => {
  if (n > MANY) {
    const sorted = slots.slice(0, n).sort((a, b) => b.first - a.first)
    for (let i = 0; i < n; i++) slots[i] = sorted[i]!
    return
  }
  // Insertion sort after a reversal: a stream that opens its blocks in turn
  // (the usual case) was met exactly reversed and needs no further move.
  for (let i = 0, j = n - 1; i < j; i++, j--) {
    const slot = slots[i]!
    slots[i] = slots[j]!
    slots[j] = slot
  }
  for (let i = 1; i < n; i++) {
    const slot = slots[i]!
    let j = i - 1
    while (j >= 0 && slots[j]!.first < slot.first) {
      slots[j + 1] = slots[j]!
      j--
    }
    slots[j + 1] = slot
  }
}

/** Lets go of what the last pass holds (blocks, texts, chunks). */
export const release = (): void => {
  for (let i = 0; i < pass.count; i++) pass.slots[i]!.reset(0)
  pass.count = 0
  pass.finish = undefined
  pass.usage = undefined
}
