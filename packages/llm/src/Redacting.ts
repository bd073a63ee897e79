/**
 * The model seam of redaction: an `LlmAdapter` that hides every secret of a
 * `Redactor` in both directions. Wrapping the adapter — not each provider —
 * covers every provider and route alike (a model switched mid-session too):
 *
 * - out: the request's system prompt and every message's content (user
 *   prompts, tool results, earlier answers), so a credential that reached the
 *   session's history by any path is never sent to a provider;
 * - in: the chunks, before the loop logs, assembles or shows them — streamed
 *   text and reasoning, tool-call arguments (a key split across deltas is
 *   caught, see `Redaction.chunks`), failure messages.
 */
import { Effect, Layer, Stream } from "effect"
import { LlmAdapter, type LlmRequest, type Service } from "./LlmAdapter.js"
import * as Redaction from "./Redaction.js"

export const request = (redactor: Redaction.Redactor, value: LlmRequest): LlmRequest => {
  if (Redaction.isEmpty(redactor)) return value
  const messages = value.messages.map((m) => Redaction.message(redactor, m))
  return {
    ...value,
    messages,
    ...(value.system === undefined ? {} : { system: Redaction.text(redactor, value.system) }),
  }
}

export const adapter = (redactor: Redaction.Redactor, inner: Service): Service =>
  Redaction.isEmpty(redactor) ? inner : {
    // What the model is (its window) carries no secret: passed on as the inner adapter says.
    ...(inner.modelInfo === undefined ? {} : { modelInfo: inner.modelInfo }),
    // Measured on the request as it is sent: redacted.
    ...(inner.answerRoom === undefined ? {} : { answerRoom: (value: LlmRequest) => inner.answerRoom!(request(redactor, value)) }),
    ...(inner.unavailable === undefined ? {} : {
      unavailable: (provider: string, model: string) =>
        Effect.map(inner.unavailable!(provider, model), (failure) =>
          failure === undefined ? undefined : { ...failure, message: Redaction.text(redactor, failure.message) }),
    }),
    stream: (value) =>
      Stream.suspend(() => {
        const chunks = Redaction.chunks(redactor)
        return inner.stream(request(redactor, value)).pipe(
          Stream.mapConcat(chunks.step),
          Stream.concat(Stream.suspend(() =>
            Stream.fromIterable(chunks.end())
          )),
        )
      }),
  }

/** Wraps the `LlmAdapter` it is provided with. */
export const layer = (redactor: Redaction.Redactor): Layer.Layer<LlmAdapter, never, LlmAdapter> =>
  Layer.effect(LlmAdapter, Effect.map(LlmAdapter, (inner) => adapter(redactor, inner)))
