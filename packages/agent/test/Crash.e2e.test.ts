// A process dies mid-turn (SIGKILL): the next process loads the session, the
// store closes the open turn durably, and the next prompt's request is well
// formed — every tool call the model made has a result.
import { spawn } from "node:child_process"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import { Jsonl } from "@turnlog/store"
import { Loopback } from "@turnlog/testkit"
import * as C from "./support/chunks.js"
import { setup, shapes, tempDir, types } from "./support/harness.js"
import { layer, modelOf } from "./support/piAi.js"

const ROOT = fileURLToPath(new URL("../../..", import.meta.url))
const CHILD = fileURLToPath(new URL("./fixtures/turn-child.ts", import.meta.url))

interface Killed {
  readonly session: SessionId
  readonly updates: ReadonlyArray<{ readonly type: string }>
  readonly signal: NodeJS.Signals | null
}

/** Runs a turn in a child process and SIGKILLs it at the first update `when` accepts. */
const runAndKill = (args: ReadonlyArray<string>, when: (update: { type: string }) => boolean) =>
  Effect.async<Killed, Error>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    })
    let session: SessionId | undefined
    let stderr = ""
    const updates: Array<{ type: string }> = []
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    readline.createInterface({ input: child.stdout }).on("line", (text) => {
      const value = JSON.parse(text) as { session?: SessionId; type?: string }
      if (value.session !== undefined) session = value.session
      else {
        updates.push(value as { type: string })
        if (when(value as { type: string })) child.kill("SIGKILL")
      }
    })
    child.once("exit", (_code, signal) => {
      if (session === undefined || signal !== "SIGKILL") {
        resume(Effect.fail(new Error(`the child ended without being killed (signal ${signal}): ${stderr}`)))
      } else resume(Effect.succeed({ session, updates, signal }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The chat-completions messages of a wire request, as role and the ids that pair calls with results. */
const conversation = (body: any) =>
  (body.messages as Array<any>).map((m) =>
    m.role === "assistant"
      ? { role: m.role, calls: (m.tool_calls ?? []).map((c: any) => c.id) }
      : m.role === "tool"
      ? { role: m.role, callId: m.tool_call_id, content: m.content }
      : { role: m.role }
  )

const API = "openai-completions" as const

describe("a process killed mid-turn", () => {
  it.scopedLive("mid-stream: load closes the turn as interrupted and the next prompt completes", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.make
      const home = yield* tempDir()
      const cwd = yield* tempDir()
      server.enqueue(
        {
          blocks: [{ type: "tool-call", id: "call_run1", name: "run_command", arguments: `{"command":"echo hi"}` }],
          finish: "tool-calls",
        },
        // Slow: one event every 100 ms, far longer than the test needs to kill it.
        { blocks: [{ type: "text", text: "word ".repeat(200) }], delayMs: 100 },
      )
      const killed = yield* runAndKill([home, cwd, server.baseUrl(API), "first"], (u) => u.type === "text-delta")
      expect(killed.updates.map((u) => u.type)).toEqual([
        "turn-start",
        "usage",
        "tool-call",
        "tool-running",
        "tool-result",
        "text-delta",
      ])
      const cut = yield* Effect.promise(() => server.settled(1))
      expect(cut.outcome).toBe("client-closed")

      const h = yield* setup([], { store: Jsonl.layerJsonl({ home }), llm: layer(server), config: { model: modelOf(API) } })
      const loaded = yield* h.loop.load(killed.session)
      expect(shapes(loaded.recovery.closedTurn ?? [])).toEqual([{ type: "turn/end", data: { reason: "interrupted" } }])
      expect(types(loaded.events).filter((t) => !SessionLog.isRawChunk(t))).toEqual([
        "turn/start",
        "user/message",
        "request/start",
        "assistant/message",
        "tool/call",
        "tool/result",
        "request/start",
        "turn/end",
      ])

      server.enqueue({ blocks: [{ type: "text", text: "Picking up again." }] })
      const updates = yield* h.prompt("second", killed.session)
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect(conversation(server.requests()[2]!.body)).toEqual([
        { role: "user" },
        { role: "assistant", calls: ["call_run1"] },
        { role: "tool", callId: "call_run1", content: "hi\n" },
        { role: "user" },
      ])
      const after = yield* h.events(killed.session)
      expect(after.at(-1)!.data).toEqual({ reason: "completed" })
    }))

  it.scopedLive("while a tool runs: its call is answered as outcome unknown, and the next request pairs it", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.make
      const home = yield* tempDir()
      const cwd = yield* tempDir()
      server.enqueue({
        blocks: [{ type: "tool-call", id: "call_slow", name: "run_command", arguments: `{"command":"sleep 10"}` }],
        finish: "tool-calls",
      })
      const killed = yield* runAndKill([home, cwd, server.baseUrl(API), "first"], (u) => u.type === "tool-running")

      const h = yield* setup([], { store: Jsonl.layerJsonl({ home }), llm: layer(server), config: { model: modelOf(API) } })
      const loaded = yield* h.loop.load(killed.session)
      const closed = loaded.recovery.closedTurn ?? []
      expect(types(closed)).toEqual(["tool/result", "turn/end"])
      expect(closed[0]!.data).toMatchObject({
        message: {
          content: [{
            type: "tool-result",
            toolCallId: "call_slow",
            content: "it may or may not have run; check before retrying",
            isError: true,
          }],
        },
        code: "TOOL_OUTCOME_UNKNOWN",
      })
      expect(closed[1]!.data).toEqual({ reason: "interrupted" })

      server.enqueue({ blocks: [{ type: "text", text: "I will check first." }] })
      const updates = yield* h.prompt("what happened?", killed.session)
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      expect(conversation(server.requests()[1]!.body)).toEqual([
        { role: "user" },
        { role: "assistant", calls: ["call_slow"] },
        { role: "tool", callId: "call_slow", content: "it may or may not have run; check before retrying" },
        { role: "user" },
      ])
    }))
})

describe("a turn whose log write fails", () => {
  it.scopedLive("fails the stream; the next prompt reopens the session and the store closes the turn first", () =>
    Effect.gen(function*() {
      let diskFull = true
      const h = yield* setup([
        [...C.toolCall(0, "call_w", "list_files", "{}"), C.toolCalls()],
        C.reply("Back."),
      ], { failAppend: (events) => diskFull && events.some((e) => e.type === "tool/result") })
      const failed = yield* Effect.either(h.prompt("list"))
      expect(Either.isLeft(failed) && failed.left.message).toBe("append (test): disk full")

      diskFull = false
      const updates = yield* h.prompt("again")
      expect(updates.at(-1)).toEqual({ type: "turn-end", reason: "completed" })
      const events = yield* h.events()
      expect(types(events).filter((t) => !SessionLog.isRawChunk(t))).toEqual([
        "turn/start",
        "user/message",
        "request/start",
        "assistant/message",
        "tool/call",
        // Written by the store's recovery when the session was reopened.
        "tool/result",
        "turn/end",
        "turn/start",
        "user/message",
        "request/start",
        "assistant/message",
        "turn/end",
      ])
      expect(events.filter((e) => e.type === "turn/end").map((e) => e.data)).toEqual([
        { reason: "interrupted" },
        { reason: "completed" },
      ])
      expect(events.find((e) => e.type === "tool/result")!.data.code).toBe("TOOL_OUTCOME_UNKNOWN")
      const request = (yield* h.requests)[1]!
      expect(request.messages.map((m) => m.source.kind)).toEqual(["user", "model", "tool", "user"])
    }))
})
