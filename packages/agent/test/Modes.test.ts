// A session's mode decides what its tools may do without asking: read-only
// refuses writes and commands (and the model is told), auto-edit writes without
// asking and asks before commands, full access never asks. The mode is an event
// in the log, so a reload keeps it.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import * as SystemPrompt from "../src/SystemPrompt.js"
import * as C from "./support/chunks.js"
import { setup } from "./support/harness.js"

const writeThenRun = [
  [
    ...C.toolCall(0, "call_1", "write_file", JSON.stringify({ path: "a.txt", content: "new" })),
    ...C.toolCall(1, "call_2", "run_command", JSON.stringify({ command: "echo ran" })),
    C.toolCalls(),
  ],
  C.reply("Done."),
]

const resultsOf = (events: ReadonlyArray<SessionLog.SessionEvent>) =>
  events.flatMap((e) => {
    if (e.type !== "tool/result") return []
    const block = e.data.message.content[0]!
    return block.type === "tool-result" ? [{ content: block.content, code: e.data.code }] : []
  })

describe("session modes", () => {
  it.scopedLive("read-only: writes and commands are refused without asking, the model is told, the log keeps it", () =>
    Effect.gen(function*() {
      const h = yield* setup(writeThenRun)
      yield* h.loop.setMode(h.id, "read-only")
      yield* h.prompt("change a.txt")
      expect(h.questions).toEqual([])
      expect(fs.existsSync(path.join(h.cwd, "a.txt"))).toBe(false)
      const events = yield* h.events()
      expect(resultsOf(events)).toEqual([
        {
          content: "permission denied: Write a.txt (the session is in read-only mode: nothing is written or run)",
          code: "PERMISSION_DENIED",
        },
        {
          content: "permission denied: Run echo ran (the session is in read-only mode: nothing is written or run)",
          code: "PERMISSION_DENIED",
        },
      ])
      expect(events[0]).toMatchObject({ seq: 1, type: "session/mode", data: { mode: "read-only" } })
      const requests = yield* h.requests
      expect(requests[0]!.system?.endsWith(SystemPrompt.READ_ONLY_TEXT)).toBe(true)
      expect(events.find((e) => e.type === "request/start")?.data).toMatchObject({
        system: { sources: ["mode:read-only"] },
      })

      // Opened again from the store, the session is still read-only.
      yield* h.loop.release(h.id)
      yield* h.loop.load(h.id)
      expect(yield* h.loop.setMode(h.id, "read-only").pipe(Effect.zipRight(h.events()))).toHaveLength(events.length)
    }))

  it.scopedLive("auto-edit writes without asking and asks before a command; full access asks nothing", () =>
    Effect.gen(function*() {
      const h = yield* setup([...writeThenRun, ...writeThenRun])
      yield* h.loop.setMode(h.id, "auto-edit")
      yield* h.prompt("change a.txt")
      expect(h.questions.map((q) => q.title)).toEqual(["Run echo ran"])
      expect(fs.readFileSync(path.join(h.cwd, "a.txt"), "utf8")).toBe("new")
      fs.rmSync(path.join(h.cwd, "a.txt"))
      yield* h.loop.setMode(h.id, "full-access")
      yield* h.prompt("again")
      expect(h.questions.map((q) => q.title)).toEqual(["Run echo ran"])
      expect(fs.readFileSync(path.join(h.cwd, "a.txt"), "utf8")).toBe("new")
      const modes = (yield* h.events()).flatMap((e) => (e.type === "session/mode" ? [e.data.mode] : []))
      expect(modes).toEqual(["auto-edit", "full-access"])
      // No system prompt is added outside read-only.
      expect((yield* h.requests).map((r) => r.system)).toEqual([undefined, undefined, undefined, undefined])
    }))

  it.scopedLive("the model proposes to leave read-only mode: the user is asked, and once allowed the turn goes on in ask mode", () =>
    Effect.gen(function*() {
      const h = yield* setup([
        [
          ...C.toolCall(0, "call_exit", "exit_plan_mode", JSON.stringify({ plan: "Write a.txt." })),
          ...C.toolCall(1, "call_w", "write_file", JSON.stringify({ path: "a.txt", content: "new" })),
          C.toolCalls(),
        ],
        C.reply("Done."),
      ])
      yield* h.loop.setMode(h.id, "read-only")
      yield* h.prompt("plan, then do it")
      expect(h.questions.map((q) => [q.tool, q.kind])).toEqual([["exit_plan_mode", "mode"], ["write_file", "write"]])
      expect(fs.readFileSync(path.join(h.cwd, "a.txt"), "utf8")).toBe("new")
      const events = yield* h.events()
      const tail = events.filter((e) => e.type === "session/mode" || e.type === "tool/result").map((e) =>
        e.type === "session/mode" ? `mode ${e.data.mode}` : "result"
      )
      expect(tail).toEqual(["mode read-only", "mode ask", "result", "result"])
      // Offered while read-only, not once the plan was approved.
      const offered = (yield* h.requests).map((r) => (r.tools ?? []).some((t) => t.name === "exit_plan_mode"))
      expect(offered).toEqual([true, false])
    }))

  it.scopedLive("a rejected plan keeps the session read-only; outside read-only the tool is neither offered nor run", () =>
    Effect.gen(function*() {
      const exit = [...C.toolCall(0, "call_exit", "exit_plan_mode", JSON.stringify({ plan: "p" })), C.toolCalls()]
      const h = yield* setup([exit, C.reply("Still planning."), exit, C.reply("Ok.")], {
        permissions: () => Effect.succeed("deny"),
      })
      yield* h.loop.setMode(h.id, "read-only")
      yield* h.prompt("plan")
      yield* h.loop.setMode(h.id, "auto-edit")
      yield* h.prompt("again")
      expect(resultsOf(yield* h.events())).toEqual([
        { content: "permission denied: Leave read-only mode and carry out the plan", code: "PERMISSION_DENIED" },
        {
          content: "exit_plan_mode failed: the session is in auto-edit mode, not read-only: there is no plan mode to leave",
          code: "TOOL_FAILED",
        },
      ])
      expect(h.questions.map((q) => q.tool)).toEqual(["exit_plan_mode"])
      const offered = (yield* h.requests).map((r) => (r.tools ?? []).some((t) => t.name === "exit_plan_mode"))
      expect(offered).toEqual([true, true, false, false])
    }))
})
