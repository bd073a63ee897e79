/**
 * A tool call streamed without an id (some OpenAI- and Anthropic-compatible
 * servers send "") is stored as `call-<index>`, the assembler's rule for a call
 * that never carried an id: two such calls of one reply stay apart, and the
 * replayed ids are not empty.
 */
import { describe, expect, it } from "@effect/vitest"
import { request, stored, user, useLoopback } from "./harness.js"

const loopback = useLoopback()

describe.each(["openai-completions", "anthropic-messages"] as const)("%s: tool calls without an id", (api) => {
  it("get distinct, non-empty ids", async () => {
    loopback.server.enqueue({
      blocks: [
        { type: "tool-call", id: "", name: "ls", arguments: "{}" },
        { type: "tool-call", id: "", name: "pwd", arguments: "{}" },
      ],
      finish: "tool-calls",
    })
    const chunks = await loopback.h.collect(request(api, [user("u1", "Hi")]))
    const ids = stored("a1", api, chunks).assembled.blocks.map((b) => (b.type === "tool-call" ? b.id : undefined))
    expect(ids.every((id) => id !== undefined && id !== "")).toBe(true)
    expect(new Set(ids).size).toBe(2)
  })
})
