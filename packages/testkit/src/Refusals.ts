/**
 * Requests the loopback refuses the way a real provider would, before any
 * scripted reply is played (a refused request takes no reply from the queue):
 *
 * - replayed metadata (a thinking signature, an `rs_…` reasoning item, a
 *   thought signature) that the provider will not accept: the metadata a given
 *   reply minted (a signature from another key, an item that expired), or any
 *   at all in the next N requests that carry some;
 * - an input over the model's context window, estimated as one token per four
 *   characters of the request body.
 *
 * Each refusal is the provider's own status and error body (see the wire
 * modules' `replayed` and `overflow`).
 */
import { Either, ParseResult, Schema } from "effect"
import type { HttpErrorReply } from "./Reply.js"
import type { WireFormat } from "./wire/Wire.js"

/**
 * `mintedBy`: refuse every request that replays metadata the reply to request
 * `mintedBy` (0-based, as `RecordedRequest.index`) minted. `next`: refuse the
 * next `next` requests that replay any metadata.
 */
export type ReplayRefusal = { readonly mintedBy: number } | { readonly next: number }

const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

/** What a control request may set: a replay rule, or the context window (`null` lifts it). */
export const Control = Schema.Union(
  Schema.Struct({ mintedBy: Count }),
  Schema.Struct({ next: Count }),
  Schema.Struct({ contextWindow: Schema.NullOr(Count) }),
)

/** Decodes a control request's body, or says what is wrong with it. */
export const decodeControl = (input: unknown): Either.Either<typeof Control.Type, string> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(Control, { onExcessProperty: "error" })(input),
    (error) => ParseResult.TreeFormatter.formatErrorSync(error),
  )

/** Why the loopback refused a request without playing a reply. */
export type Refusal = "replay" | "context-window"

export interface Refusals {
  readonly refuseReplay: (rule: ReplayRefusal) => void
  readonly setContextWindow: (tokens: number | undefined) => void
  /** The frames a request's reply was rendered as: what it minted. */
  readonly minted: (index: number, frames: ReadonlyArray<string>) => void
  /** The refusal of a request (its parsed body and raw text), if it is refused. */
  readonly check: (format: WireFormat, body: unknown, raw: string) => { readonly refusal: Refusal; readonly reply: HttpErrorReply } | undefined
}

/** One token per four characters: the common rule of thumb, and what the loopback counts. */
export const estimateTokens = (raw: string): number => Math.ceil(raw.length / 4)

// A value appears in the frames as a JSON string.
const inFrames = (frames: string, value: string) => frames.includes(JSON.stringify(value).slice(1, -1))

export const make = (options: { readonly contextWindow?: number | undefined } = {}): Refusals => {
  let window = options.contextWindow
  const mintedBy = new Set<number>()
  let next = 0
  const frames = new Map<number, string>()

  const refusesReplay = (values: ReadonlyArray<string>): boolean =>
    next > 0 ||
    [...mintedBy].some((index) => {
      const minted = frames.get(index)
      return minted !== undefined && values.some((value) => inFrames(minted, value))
    })

  return {
    refuseReplay: (rule) => {
      if ("mintedBy" in rule) mintedBy.add(rule.mintedBy)
      else next += rule.next
    },
    setContextWindow: (tokens) => {
      window = tokens
    },
    minted: (index, rendered) => {
      if (rendered.length > 0) frames.set(index, rendered.join(""))
    },
    check: (format, body, raw) => {
      const refused = format.replayed(body).find((replayed) => refusesReplay(replayed.values))
      if (refused !== undefined) {
        if (next > 0) next--
        return { refusal: "replay", reply: refused.refusal }
      }
      const tokens = estimateTokens(raw)
      if (window !== undefined && tokens > window) return { refusal: "context-window", reply: format.overflow(tokens, window) }
      return undefined
    },
  }
}
