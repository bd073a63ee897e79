/**
 * The shape of provider replay metadata as it travels on a finish chunk: an
 * opaque response half plus optional per-block entries, one per streamed block.
 * The alignment operations live in `@turnlog/envelope`; the shape lives here so
 * that stream chunks can carry it without a dependency cycle.
 */
import { Schema } from "effect"

export const ReplayEnvelope = Schema.Struct({
  response: Schema.Unknown,
  blocks: Schema.optionalWith(Schema.Array(Schema.Unknown), { exact: true }),
})
export type ReplayEnvelope = typeof ReplayEnvelope.Type
