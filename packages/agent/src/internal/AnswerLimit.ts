/**
 * The bound on one answer: an answer may stream so many characters of text,
 * reasoning and tool-call arguments (`maxAnswerChars`), and no more. Past it
 * the request is abandoned with an `ANSWER_TOO_LARGE` finish, so no string the
 * answer makes (its text, its logged chunks, their JSON) grows without bound.
 */
import { Stream } from "effect"
import type { Route, StreamChunk } from "@turnlog/protocol"

export const ANSWER_TOO_LARGE = "ANSWER_TOO_LARGE"

/** The characters a chunk adds to the answer. */
const sizeOf = (chunk: StreamChunk): number => {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
      return chunk.text.length
    case "tool-call-delta":
      return chunk.argumentsDelta.length
    case "block-start":
    case "block-end":
    case "usage":
    case "finish":
      return 0
  }
}

/** A delta cut to its first `chars` characters. */
const cutTo = (chunk: StreamChunk, chars: number): StreamChunk => {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
      return { ...chunk, text: chunk.text.slice(0, chars) }
    case "tool-call-delta":
      return { ...chunk, argumentsDelta: chunk.argumentsDelta.slice(0, chars) }
    default:
      return chunk
  }
}

/** The finish of an answer that streamed past `limit` characters. */
export const tooLarge = (route: Route, limit: number): StreamChunk => ({
  type: "finish",
  reason: {
    kind: "error",
    failure: {
      code: ANSWER_TOO_LARGE,
      message: `the answer from ${route.provider}/${route.model} was too large: it passed ${limit} characters, ` +
        `so the request was abandoned and its first ${limit} characters were kept`,
    },
  },
})

/**
 * The stream held to `limit` characters of answer: the delta that passes it
 * is cut there and followed by a `tooLarge` finish, which ends the stream
 * (closing it aborts the request). Nothing past the limit is logged, shown or
 * assembled, so no string the answer makes grows without bound.
 */
export const bounded = (limit: number, route: Route) => (stream: Stream.Stream<StreamChunk>): Stream.Stream<StreamChunk> =>
  Stream.suspend(() => {
    let size = 0
    return stream.pipe(
      Stream.mapConcat((chunk): ReadonlyArray<StreamChunk> => {
        const added = sizeOf(chunk)
        if (size + added <= limit) {
          size += added
          return [chunk]
        }
        const room = limit - size
        size = limit
        const end = tooLarge(route, limit)
        return room > 0 ? [cutTo(chunk, room), end] : [end]
      }),
      Stream.takeUntil((chunk) => chunk.type === "finish"),
    )
  })
