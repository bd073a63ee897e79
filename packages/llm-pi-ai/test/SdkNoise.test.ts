/**
 * A provider stream with an event that is not JSON: the SDK's own log lines
 * about it ("Could not parse message into JSON") never reach the console — the
 * terminal and ACP's stderr are turnlog's — while the failure itself still ends
 * the stream as an error finish carrying what went wrong.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import type { StreamChunk } from "@turnlog/protocol"
import { APIS, request, user, useLoopback } from "./harness.js"

// Installed before any SDK client exists: the SDKs bind their logger to console's methods when they first log.
const logged: Array<string> = []
const spies = (["error", "warn"] as const).map((level) =>
  vi.spyOn(console, level).mockImplementation((...args: Array<unknown>) => {
    logged.push(args.map(String).join(" "))
  })
)
beforeEach(() => {
  logged.length = 0
})
afterAll(() => spies.forEach((spy) => spy.mockRestore()))

const loopback = useLoopback()

// The OpenAI and Gemini SDKs fail the stream on it; pi-ai's Anthropic parser passes over an unnamed event.
const outcome = {
  "openai-completions": {
    kind: "error",
    failure: { code: "PROVIDER_ERROR", message: "Error reading response: malformed server-sent event JSON." },
  },
  "openai-responses": {
    kind: "error",
    failure: { code: "PROVIDER_ERROR", message: "Error reading response: malformed server-sent event JSON." },
  },
  "anthropic-messages": { kind: "stop" },
  "google-generative-ai": { kind: "error", failure: { code: "PROVIDER_ERROR", message: "Unexpected end of JSON input" } },
} as const

describe.each(APIS)("%s: an event that is not JSON", (api) => {
  it("ends the stream as the provider's parser decides, and nothing is written to the console", async () => {
    loopback.server.enqueue({ blocks: [{ type: "text", text: "Half of an answer, then garbage." }], malformedAfterEvents: 2 })
    const chunks = await loopback.h.collect(request(api, [user("u1", "Hello")]))
    expect(chunks.filter((c) => c.type === "finish")).toHaveLength(1)
    expect((chunks.at(-1) as Extract<StreamChunk, { type: "finish" }>).reason).toStrictEqual(outcome[api])
    expect(logged).toEqual([])
  })
})
