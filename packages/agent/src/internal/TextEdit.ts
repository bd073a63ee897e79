/**
 * Exact-passage replacement in a text and the unified diff of it. The edits
 * are known positions, so the diff is made from them directly (each edit's
 * lines, with context around them) rather than by comparing the two texts:
 * linear in the file's size and exactly the change that was made.
 */

/** A replacement of `before.slice(start, end)` by `text`. */
export interface Edit {
  readonly start: number
  readonly end: number
  readonly text: string
}

/** Where `passage` occurs in `text`, without overlaps, in order. */
export const occurrences = (text: string, passage: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  if (passage === "") return found
  for (let at = text.indexOf(passage); at !== -1; at = text.indexOf(passage, at + passage.length)) found.push(at)
  return found
}

/** `before` with the edits (sorted, not overlapping) applied. */
export const apply = (before: string, edits: ReadonlyArray<Edit>): string => {
  let out = ""
  let at = 0
  for (const edit of edits) {
    out += before.slice(at, edit.start) + edit.text
    at = edit.end
  }
  return out + before.slice(at)
}

/** Lines with their terminators; a text ending in a newline has no empty last line. */
const splitLines = (text: string): Array<string> => {
  const lines: Array<string> = []
  let at = 0
  while (at < text.length) {
    const nl = text.indexOf("\n", at)
    const end = nl === -1 ? text.length : nl + 1
    lines.push(text.slice(at, end))
    at = end
  }
  return lines
}

/** A changed run of whole lines: `[from, to)` lines of the old text, and what replaces them. */
interface Block {
  readonly from: number
  readonly to: number
  readonly added: ReadonlyArray<string>
}

/** The index of the line holding offset `offset` (the count of line starts at or before it, less one). */
const lineOf = (starts: ReadonlyArray<number>, offset: number): number => {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (starts[mid]! <= offset) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** The block without the lines it leaves as they were at its start and its end. */
const trimmed = (lines: ReadonlyArray<string>, block: Block): Block => {
  let { from, to } = block
  let first = 0
  let last = block.added.length
  while (from < to && first < last && lines[from] === block.added[first]) {
    from++
    first++
  }
  while (from < to && first < last && lines[to - 1] === block.added[last - 1]) {
    to--
    last--
  }
  return { from, to, added: block.added.slice(first, last) }
}

const blocksOf = (before: string, lines: ReadonlyArray<string>, edits: ReadonlyArray<Edit>): Array<Block> => {
  const starts: Array<number> = []
  let offset = 0
  for (const line of lines) {
    starts.push(offset)
    offset += line.length
  }
  const endOfLine = (i: number) => (i + 1 < starts.length ? starts[i + 1]! : before.length)
  const blocks: Array<Block> = []
  let i = 0
  while (i < edits.length) {
    const first = edits[i]!
    const from = lineOf(starts, first.start)
    let to = lineOf(starts, Math.max(first.start, first.end - 1)) + 1
    const taken: Array<Edit> = [first]
    i++
    for (;;) {
      // Edits that touch the lines taken so far belong to this block.
      while (i < edits.length && edits[i]!.start < endOfLine(to - 1)) {
        const next = edits[i]!
        to = Math.max(to, lineOf(starts, Math.max(next.start, next.end - 1)) + 1)
        taken.push(next)
        i++
      }
      const start = starts[from] ?? 0
      const text = apply(before.slice(start, endOfLine(to - 1)), taken.map((e) => ({ ...e, start: e.start - start, end: e.end - start })))
      // A replacement whose last line has no newline runs into the next line: that line changes too.
      if (!text.endsWith("\n") && text !== "" && to < lines.length) {
        to++
        continue
      }
      blocks.push(trimmed(lines, { from, to, added: splitLines(text) }))
      break
    }
  }
  return blocks
}

const CONTEXT = 3

const rendered = (mark: string, line: string): Array<string> => line.endsWith("\n") ? [mark + line.slice(0, -1)] : [mark + line, "\\ No newline at end of file"]

const range = (start: number, count: number): string => `${count === 0 ? start : start + 1},${count}`

/**
 * The unified diff (three lines of context) of applying `edits` to `before`,
 * headed `--- a/<name>` / `+++ b/<name>`; empty when nothing changes.
 */
export const unifiedDiff = (name: string, before: string, edits: ReadonlyArray<Edit>): string => {
  const lines = splitLines(before)
  const blocks = blocksOf(before, lines, edits).filter((b) => b.to > b.from || b.added.length > 0)
  if (blocks.length === 0) return ""
  const out = [`--- a/${name}`, `+++ b/${name}`]
  let shift = 0 // lines added less lines removed by the blocks before the hunk
  let b = 0
  while (b < blocks.length) {
    // Blocks closer than twice the context share a hunk.
    let last = b
    while (last + 1 < blocks.length && blocks[last + 1]!.from - blocks[last]!.to <= 2 * CONTEXT) last++
    const from = Math.max(0, blocks[b]!.from - CONTEXT)
    const to = Math.min(lines.length, blocks[last]!.to + CONTEXT)
    const body: Array<string> = []
    let oldCount = 0
    let newCount = 0
    let at = from
    let hunkShift = 0
    for (let k = b; k <= last; k++) {
      const block = blocks[k]!
      for (; at < block.from; at++, oldCount++, newCount++) body.push(...rendered(" ", lines[at]!))
      for (; at < block.to; at++, oldCount++) body.push(...rendered("-", lines[at]!))
      for (const line of block.added) body.push(...rendered("+", line))
      newCount += block.added.length
      hunkShift += block.added.length - (block.to - block.from)
    }
    for (; at < to; at++, oldCount++, newCount++) body.push(...rendered(" ", lines[at]!))
    out.push(`@@ -${range(from, oldCount)} +${range(from + shift, newCount)} @@`, ...body)
    shift += hunkShift
    b = last + 1
  }
  return out.join("\n")
}
