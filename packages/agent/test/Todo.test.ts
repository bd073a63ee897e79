// The `todo` tool's plan: the checklist its result is, the entries an editor is
// sent, and arguments that are not a plan refused with the field named.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { SessionId } from "@turnlog/protocol"
import { Todo } from "../src/index.js"

const entries = [
  { content: "Read the notes", status: "completed", priority: "high" },
  { content: "Write the summary", status: "in_progress", priority: "medium" },
  { content: "Check the links", status: "pending", priority: "low" },
] as const

describe("todo", () => {
  it.effect("answers with the plan as a checklist, asking no permission", () =>
    Effect.gen(function*() {
      const tool = Todo.tool()
      expect(tool.display(JSON.stringify({ entries }))).toMatchObject({ kind: "think", title: "Plan: 1 of 3 done" })
      const prepared = yield* tool.prepare(JSON.stringify({ entries }), { sessionId: SessionId.make("s"), callId: "c", cwd: "/" })
      expect(prepared.permission).toBeUndefined()
      expect(yield* prepared.run).toBe("Plan: 1 of 3 done\n[x] Read the notes (high)\n[~] Write the summary\n[ ] Check the links")
      expect(Todo.checklist([])).toBe("Plan cleared.")
    }))

  it.effect("gives an editor the entries; a status it does not know is refused naming the field", () =>
    Effect.gen(function*() {
      expect(Todo.entriesOf(JSON.stringify({ entries }))).toEqual(entries)
      const bad = JSON.stringify({ entries: [{ content: "x", status: "done", priority: "low" }] })
      expect(Todo.entriesOf(bad)).toBeUndefined()
      const refused = yield* Effect.either(Todo.tool().prepare(bad, { sessionId: SessionId.make("s"), callId: "c", cwd: "/" }))
      expect(Either.isLeft(refused) && refused.left.message).toContain("status")
    }))
})
