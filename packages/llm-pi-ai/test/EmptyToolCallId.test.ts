/**
 * A tool call streamed without an id (some OpenAI- and Anthropic-compatible
 * servers send "") is stored as `call-<index>`, the assembler's rule for a call
 * that never carried an id: two such calls of one reply stay apart, and the
 * replayed ids are not empty.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Loopback } from "@turnlog/testkit"
import { harness, type Harness, request, stored, user } from "./harness.js"

let server: Loopback.Server
let h: Harness
beforeAll(async () => {
  server = await Loopback.start()
  h = await harness(server)
})
afterAll(() => server.close())

describe.each(["openai-completions", "anthropic-messages"] as const)("%s: tool calls without an id", (api) => {
  it("get distinct, non-empty ids", async () => {
    server.enqueue({
      blocks: [
        { type: "tool-call", id: "", name: "ls", arguments: "{}" },
        { type: "tool-call", id: "", name: "pwd", arguments: "{}" },
      ],
      finish: "tool-calls",
    })
    const chunks = await h.collect(request(api, [user("u1", "Hi")]))
    const ids = stored("a1", api, chunks).assembled.blocks.map((b) => (b.type === "tool-call" ? b.id : undefined))
    expect(ids.every((id) => id !== undefined && id !== "")).toBe(true)
    expect(new Set(ids).size).toBe(2)
  })
})
