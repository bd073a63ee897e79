/** Token usage as reported by a provider for one response. */
import { Schema } from "effect"

const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

export const Usage = Schema.Struct({
  inputTokens: Count,
  outputTokens: Count,
  cacheReadTokens: Schema.optionalWith(Count, { exact: true }),
  cacheWriteTokens: Schema.optionalWith(Count, { exact: true }),
  reasoningTokens: Schema.optionalWith(Count, { exact: true }),
})
export type Usage = typeof Usage.Type
