/**
 * The request-side cut of text too large to send whole: the head and the
 * tail are kept and the cut is stated where it was made, in words the model
 * reads. Only the request is cut; the log keeps every character.
 */
import type { Message } from "@turnlog/protocol"

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** Characters (code points, as a reader counts them) of `text` from `start` to `end`. */
const codePoints = (text: string, start: number, end: number): number => {
  let n = 0
  for (let i = start; i < end; i++) {
    // the second half of a surrogate pair is the same character as the first
    if (!(i > start && isLowSurrogate(text.charCodeAt(i)) && isHighSurrogate(text.charCodeAt(i - 1)))) n++
  }
  return n
}

export const cutNotice = (left: number, total: number): string =>
  `\n\n[… ${left} of this text's ${total} characters were cut here to fit the context window; the start and the end are kept …]\n\n`

/**
 * `text` when it is at most `limitChars` long; otherwise its first and last
 * parts around a notice that says how much was cut, the whole no longer than
 * `limitChars` plus the notice. A cut never splits a character.
 */
export const cutText = (text: string, limitChars: number): string => {
  if (text.length <= limitChars) return text
  const keep = Math.max(0, Math.floor(limitChars))
  let head = Math.ceil(keep / 2)
  let tail = text.length - (keep - head)
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head--
  if (tail < text.length && isLowSurrogate(text.charCodeAt(tail))) tail++
  const total = codePoints(text, 0, text.length)
  return text.slice(0, head) + cutNotice(codePoints(text, head, tail), total) + text.slice(tail)
}

/**
 * The request's messages with every tool result longer than `limitChars`
 * cut by `cutText`; the same array when none is.
 */
export const cutToolResults = (messages: ReadonlyArray<Message>, limitChars: number): ReadonlyArray<Message> => {
  let out: Array<Message> | undefined
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    let long = false
    for (const block of message.content) {
      if (block.type === "tool-result" && block.content.length > limitChars) long = true
    }
    if (!long) {
      out?.push(message)
      continue
    }
    out ??= messages.slice(0, i)
    out.push({
      ...message,
      content: message.content.map((block) =>
        block.type === "tool-result" && block.content.length > limitChars
          ? { ...block, content: cutText(block.content, limitChars) }
          : block
      ),
    })
  }
  return out ?? messages
}
