/**
 * How deeply a line of JSON nests, found by one pass over its text without
 * parsing it (and without recursion, so a hostile line cannot exhaust the
 * stack while it is measured). Writing an event serialises it recursively
 * (`JSON.stringify`), and SQLite's JSON functions stop at 1,000 levels, so
 * a line nested deeper than a store can write is refused before anything is
 * written.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d

/** Whether `text` (JSON) nests objects and arrays more than `limit` levels deep. */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) {
      inString = true
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}
