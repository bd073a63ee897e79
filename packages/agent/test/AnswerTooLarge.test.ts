// An answer larger than an answer may be (`maxAnswerChars`, small here so the
// test stays light) over the real pi-ai adapter and a loopback provider: the
// request is abandoned at the limit, the turn ends durably as an error that
// says why, what streamed before the limit is kept, and the session goes on.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Memory } from "@turnlog/store"
import { Loopback } from "@turnlog/testkit"
import { chunksOf, ONE_STEP_TURN, outline, setup } from "./support/harness.js"
import { layer, modelOf } from "./support/piAi.js"

const LIMIT = 50_000
/** About 200,000 characters in long words (the loopback streams a delta a word). */
const huge = Array.from({ length: 2_000 }, (_, i) => `w${String(i).padStart(5, "0")}${"x".repeat(94)}`).join(" ")

describe("an answer larger than maxAnswerChars", () => {
  it.scopedLive("ends the turn as ANSWER_TOO_LARGE, keeping the text up to the limit; the session continues", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.make
      const h = yield* setup([], {
        llm: layer(server),
        store: Memory.layerMemory,
        config: { model: modelOf("openai-completions"), maxAnswerChars: LIMIT },
      })
      server.enqueue({ blocks: [{ type: "text", text: huge }] })
      const updates = yield* h.prompt("write a lot")
      const failure = {
        code: "ANSWER_TOO_LARGE",
        message: `the answer from lb-openai-completions/loop-1 was too large: it passed ${LIMIT} characters, ` +
          `so the request was abandoned and its first ${LIMIT} characters were kept`,
      }
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "error", failure })
      const shown = updates.flatMap((u) => (u.type === "text-delta" ? [u.text] : [])).join("")
      expect(shown).toBe(huge.slice(0, LIMIT))

      const events = yield* h.events()
      expect(outline(events)).toEqual(ONE_STEP_TURN)
      const message = events.find((e) => e.type === "assistant/message")!
      expect(message.data).toMatchObject({
        message: { content: [{ type: "text", text: huge.slice(0, LIMIT) }] },
        finish: { kind: "error", failure },
        interrupted: true,
      })
      expect(events.at(-1)!.data).toEqual({ reason: "error", failure })
      const logged = chunksOf(events).reduce((n, c) => n + (c.type === "text-delta" ? c.text.length : 0), 0)
      expect(logged).toBe(LIMIT)

      server.enqueue({ blocks: [{ type: "text", text: "A short one." }] })
      expect((yield* h.prompt("shorter please")).at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const sent = JSON.stringify(server.requests().at(-1)!.body)
      expect(sent).toContain(`w00000${"x".repeat(94)} w00001`)
      expect(sent).toContain("shorter please")
    }))
})
