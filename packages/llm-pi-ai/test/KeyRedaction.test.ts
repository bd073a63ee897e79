/**
 * A key read with surrounding whitespace (a CRLF .env file, a trailing newline
 * or space) is trimmed once: the request sends the trimmed key, and a provider
 * failure that echoes it is scrubbed before it reaches a chunk.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { LlmAdapter } from "@turnlog/llm/LlmAdapter"
import { layerSilent } from "@turnlog/llm/ReplayDiagnostics"
import { PiAiAdapter } from "@turnlog/llm-pi-ai"
import { APIS, configFor, KEY, KEY_ENV, request, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

describe.each(APIS)("%s: a key with surrounding whitespace in the environment", (api) => {
  it.each([["\\r (CRLF .env file)", `${KEY}\r`], ["\\n", `${KEY}\n`], ["a trailing space", `${KEY} `]])(
    "%s: the key echoed by the provider never reaches a chunk",
    async (_name, value) => {
      const adapter = await Effect.runPromise(
        Effect.provide(
          LlmAdapter,
          PiAiAdapter.layerPiAi(configFor(loopback.server), { env: { [KEY_ENV]: value } }).pipe(Layer.provide(layerSilent)),
        ),
      )
      loopback.server.enqueue({ status: 401, message: `Incorrect API key provided: ${KEY}.` })
      const chunks = await Effect.runPromise(
        Stream.runCollect(adapter.stream(request(api, [user("u", "hi")]))).pipe(Effect.map(Chunk.toReadonlyArray)),
      )
      expect(chunks.at(-1)).toMatchObject({ reason: { kind: "error", failure: { code: "AUTH" } } })
      expect(JSON.stringify(chunks)).not.toContain(KEY)
    },
  )
})
