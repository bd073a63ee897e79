import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as acp from "@agentclientprotocol/sdk"
import { Effect, Layer, ManagedRuntime, Ref, Stream } from "effect"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import type { AgentLoop } from "@turnlog/agent"
import { SessionId, type SessionLog } from "@turnlog/protocol"
import { Memory, type SessionStore } from "@turnlog/store"
import { Builtins } from "@turnlog/agent"
import { AcpServer, CallIds, EditorHost, Modes, PermissionBridge } from "@turnlog/acp"
import * as FakeLoop from "./fakeLoop.js"
import { makeWire, type Wire } from "./wire.js"

// The sessions' cwd: session/new needs a directory that exists.
const PROJECT = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-acp-project-")))
afterAll(() => rmSync(PROJECT, { recursive: true, force: true }))

const runtimes: Array<ManagedRuntime.ManagedRuntime<unknown, unknown>> = []
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()))
})

interface Harness {
  readonly wire: Wire
  readonly logs: Array<string>
  readonly prompts: () => Promise<ReadonlyArray<{ readonly sessionId: string; readonly content: unknown }>>
  readonly served: Promise<void>
}

const start = async (
  turns: ReadonlyArray<FakeLoop.Turn>,
  stored: ReadonlyMap<string, SessionStore.LoadedSession> = new Map(),
): Promise<Harness> => {
  const fake = await Effect.runPromise(FakeLoop.make(turns, stored))
  const layer = fake.layer.pipe(
    Layer.provide(PermissionBridge.layerPermissions),
    Layer.provideMerge(Layer.mergeAll(PermissionBridge.layer, CallIds.layer, EditorHost.layer, Builtins.layer(), Memory.layerMemory)),
  )
  const runtime = ManagedRuntime.make(layer)
  runtimes.push(runtime as ManagedRuntime.ManagedRuntime<unknown, unknown>)
  const logs: Array<string> = []
  const wire = makeWire()
  const served = runtime.runPromise(
    Effect.flatMap(AcpServer.make({ version: "9.9.9", log: (line) => logs.push(line) }), (s) => s.serve(wire.agent)),
  )
  return { wire, logs, prompts: () => Effect.runPromise(Ref.get(fake.prompts)), served }
}

type Updates = Array<acp.SessionNotification>

const client = <T>(
  wire: Wire,
  op: (ctx: acp.ClientContext, updates: Updates) => Promise<T>,
  onPermission?: (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse,
): Promise<T> => {
  const updates: Updates = []
  return acp.client({ name: "test" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params)
    })
    .onRequest("session/request_permission", ({ params }) => {
      if (onPermission === undefined) throw new Error("unexpected permission request")
      return onPermission(params)
    })
    .connectWith(wire.client, (ctx) => op(ctx, updates))
}

const init = (ctx: acp.ClientContext) => ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })

const newSession = async (ctx: acp.ClientContext, cwd = PROJECT) => (await ctx.request("session/new", { cwd, mcpServers: [] })).sessionId

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a JSON-RPC error")
    },
    (e: unknown) => {
      const error = e as { code: number; message: string }
      return { code: error.code, message: error.message }
    },
  )

const play = (updates: ReadonlyArray<AgentLoop.AgentUpdate>): FakeLoop.Turn => () => Stream.fromIterable(updates)

const end = (reason: SessionLog.TurnEndReason): AgentLoop.AgentUpdate => ({ type: "turn-end", reason })

describe("initialize", () => {
  it("answers protocol version 1, the agent's name and version, and what it can do", async () => {
    const h = await start([])
    const response = await client(h.wire, (ctx) => init(ctx))
    expect(response).toEqual({
      protocolVersion: 1,
      agentInfo: { name: "turnlog", version: "9.9.9" },
      agentCapabilities: {
        loadSession: true,
        sessionCapabilities: { list: {}, close: {}, resume: {}, delete: {}, fork: {} },
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
      },
      authMethods: [],
    })
  })
})

describe("session/new", () => {
  it("refuses a relative cwd and keeps serving", async () => {
    const h = await start([])
    const [error, id] = await client(h.wire, async (ctx) => {
      await init(ctx)
      const error = await rejection(ctx.request("session/new", { cwd: "project", mcpServers: [] }))
      return [error, await newSession(ctx)] as const
    })
    expect(error).toEqual({ code: -32602, message: 'Invalid params: cwd must be an absolute path, got "project"' })
    expect(id).toBe("session-1")
  })

  it("refuses a cwd that does not exist, or is not a directory, and keeps serving", async () => {
    const h = await start([])
    const file = join(PROJECT, "notes.txt")
    writeFileSync(file, "x")
    const [missing, notDirectory, id] = await client(h.wire, async (ctx) => {
      await init(ctx)
      const missing = await rejection(ctx.request("session/new", { cwd: join(PROJECT, "gone"), mcpServers: [] }))
      const notDirectory = await rejection(ctx.request("session/new", { cwd: file, mcpServers: [] }))
      return [missing, notDirectory, await newSession(ctx)] as const
    })
    expect(missing).toEqual({ code: -32602, message: `Invalid params: cwd ${join(PROJECT, "gone")} does not exist` })
    expect(notDirectory).toEqual({ code: -32602, message: `Invalid params: cwd ${file} is not a directory` })
    expect(id).toBe("session-1")
  })

  it("accepts MCP servers and says on stderr that they are not used yet", async () => {
    const h = await start([])
    await client(h.wire, async (ctx) => {
      await init(ctx)
      await ctx.request("session/new", {
        cwd: PROJECT,
        mcpServers: [{ name: "files", command: "mcp-files", args: [], env: [] }],
      })
    })
    expect(h.logs).toEqual(["MCP servers are accepted but not used yet: files"])
  })
})

describe("session/prompt", () => {
  it("streams deltas, reports a committed tool call and its progress, then ends the turn", async () => {
    const h = await start([
      play([
        { type: "turn-start" },
        { type: "reasoning-delta", text: "Look" },
        { type: "text-delta", text: "Reading " },
        { type: "text-delta", text: "it." },
        { type: "tool-call", callId: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' },
        { type: "tool-running", callId: "call_1", name: "read_file" },
        { type: "tool-result", callId: "call_1", name: "read_file", content: "hello", isError: false },
        { type: "usage", usage: { inputTokens: 3, outputTokens: 4 } },
        { type: "text-delta", text: "It says hello." },
        end("completed"),
      ]),
    ])
    const [response, updates] = await client(h.wire, async (ctx, updates) => {
      await init(ctx)
      const sessionId = await newSession(ctx)
      const response = await ctx.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "What is in a.txt?" },
          { type: "resource", resource: { uri: "file:///home/ada/project/b.txt", text: "bee" } },
        ],
      })
      return [response, updates.map((u) => u.update)] as const
    })
    expect(response).toEqual({ stopReason: "end_turn", usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } })
    expect(updates).toEqual([
      { sessionUpdate: "session_info_update", title: 'What is in a.txt? <resource uri="file:///home/ada/project/b…' },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Look" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Reading " } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "it." } },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_1",
        title: "Read a.txt",
        name: "read_file",
        kind: "read",
        status: "pending",
        rawInput: { path: "a.txt" },
        locations: [{ path: join(PROJECT, "a.txt") }],
      },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "hello" } }],
      },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "It says hello." } },
    ])
    expect(await h.prompts()).toEqual([{
      sessionId: "session-1",
      content: [
        { type: "text", text: "What is in a.txt?" },
        { type: "text", text: '<resource uri="file:///home/ada/project/b.txt">\nbee\n</resource>' },
      ],
    }])
  })

  it("maps each way a turn ends to its stop reason", async () => {
    const h = await start([
      play([end("max-tokens")]),
      play([end("max-steps")]),
      play([end("cancelled")]),
      play([end("completed")]),
    ])
    const reasons = await client(h.wire, async (ctx) => {
      await init(ctx)
      const sessionId = await newSession(ctx)
      const out: Array<string> = []
      for (let i = 0; i < 4; i++) {
        out.push((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason)
      }
      return out
    })
    expect(reasons).toEqual(["max_tokens", "max_turn_requests", "cancelled", "end_turn"])
  })

  it("answers an error turn with a JSON-RPC error that names the failure, and the next prompt works", async () => {
    const h = await start([
      play([
        { type: "text-delta", text: "partial" },
        {
          type: "turn-end",
          reason: "error",
          failure: { code: "AUTH", message: "invalid x-api-key", status: 401 },
        },
      ]),
      play([end("completed")]),
    ])
    const [error, second] = await client(h.wire, async (ctx) => {
      await init(ctx)
      const sessionId = await newSession(ctx)
      const error = await rejection(ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a" }] }))
      const second = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "b" }] })
      return [error, second] as const
    })
    expect(error).toEqual({ code: -32603, message: "the turn failed: invalid x-api-key (AUTH, HTTP 401)" })
    expect(second).toEqual({ stopReason: "end_turn" })
  })

  it("refuses an unknown session, audio content and an image of another type, and keeps serving", async () => {
    const h = await start([play([end("completed")])])
    const [unknown, audio, image, ok] = await client(h.wire, async (ctx) => {
      await init(ctx)
      const unknown = await rejection(
        ctx.request("session/prompt", { sessionId: "nope", prompt: [{ type: "text", text: "a" }] }),
      )
      const sessionId = await newSession(ctx)
      const audio = await rejection(
        ctx.request("session/prompt", { sessionId, prompt: [{ type: "audio", data: "AA==", mimeType: "audio/wav" }] }),
      )
      const image = await rejection(
        ctx.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "a" }, { type: "image", data: "AA==", mimeType: "image/tiff" }],
        }),
      )
      const ok = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a" }] })
      return [unknown, audio, image, ok] as const
    })
    expect(unknown).toEqual({
      code: -32002,
      message: "session nope is not open on this connection (use session/new or session/load)",
    })
    expect(audio).toEqual({
      code: -32602,
      message: "Invalid params: audio content is not supported (promptCapabilities.audio is false)",
    })
    expect(image).toEqual({
      code: -32602,
      message: `Invalid params: the image at prompt[1] is of type "image/tiff"; supported image types are image/png, image/jpeg, image/gif, image/webp`,
    })
    expect(ok).toEqual({ stopReason: "end_turn" })
  })

  it("names an id no store could serve by a clipped prefix and its length, without echoing it back", async () => {
    const h = await start([play([end("completed")])])
    const long = "x".repeat(1_000_000)
    const [prompted, loaded] = await client(h.wire, async (ctx) => {
      await init(ctx)
      const prompted = await rejection(ctx.request("session/prompt", { sessionId: long, prompt: [{ type: "text", text: "a" }] }))
      const loaded = await rejection(ctx.request("session/load", { sessionId: "../../etc/passwd", cwd: PROJECT, mcpServers: [] }))
      return [prompted, loaded] as const
    })
    expect(prompted).toEqual({
      code: -32002,
      message: `"${"x".repeat(40)}"… (1000000 characters) is not a session id (session ids are letters, digits, ".", "_" and "-")`,
    })
    expect(loaded).toEqual({
      code: -32002,
      message: '"../../etc/passwd" is not a session id (session ids are letters, digits, ".", "_" and "-")',
    })
  })

  it("refuses a second prompt while one is in flight; session/cancel ends the first as cancelled", async () => {
    const waitForCancel: FakeLoop.Turn = (turn) =>
      Stream.concat(
        Stream.make<Array<AgentLoop.AgentUpdate>>({ type: "text-delta", text: "thinking about it" }),
        Stream.fromEffect(Effect.as(turn.cancelled, end("cancelled"))),
      )
    const h = await start([waitForCancel, play([end("completed")])])
    const [second, first, third] = await client(h.wire, async (ctx, updates) => {
      await init(ctx)
      const sessionId = await newSession(ctx)
      const first = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a" }] })
      while (updates.length === 0) await new Promise((r) => setTimeout(r, 1))
      const second = await rejection(ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "b" }] }))
      await ctx.notify("session/cancel", { sessionId })
      const firstResponse = await first
      const third = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "c" }] })
      return [second, firstResponse, third] as const
    })
    expect(second).toEqual({
      code: -32600,
      message: "session session-1 already has a prompt in flight; wait for its answer or send session/cancel",
    })
    expect(first).toEqual({ stopReason: "cancelled" })
    expect(third).toEqual({ stopReason: "end_turn" })
  })

  it("asks the editor before a write and runs it only when allowed", async () => {
    const asking: FakeLoop.Turn = (turn) =>
      Stream.unwrap(Effect.gen(function*() {
        const first = yield* turn.ask("write_file", "write", { path: "out.txt", content: "x" }, "call_w")
        const second = yield* turn.ask("run_command", "command", { command: "rm -rf /" }, "call_c")
        return Stream.make<Array<AgentLoop.AgentUpdate>>(
          { type: "text-delta", text: `write ${first ? "allowed" : "denied"}, command ${second ? "allowed" : "denied"}` },
          end("completed"),
        )
      }))
    const h = await start([asking])
    const asked: Array<acp.RequestPermissionRequest> = []
    const updates = await client(
      h.wire,
      async (ctx, updates) => {
        await init(ctx)
        const sessionId = await newSession(ctx)
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })
        return updates.map((u) => u.update)
      },
      (request) => {
        asked.push(request)
        return {
          outcome: request.toolCall.kind === "edit"
            ? { outcome: "selected", optionId: PermissionBridge.ALLOW_ONCE }
            : { outcome: "selected", optionId: PermissionBridge.REJECT_ONCE },
        }
      },
    )
    expect(asked).toEqual([
      {
        sessionId: "session-1",
        toolCall: {
          toolCallId: "call_w",
          title: "Write out.txt",
          kind: "edit",
          name: "write_file",
          locations: [{ path: join(PROJECT, "out.txt") }],
          content: [{ type: "diff", path: join(PROJECT, "out.txt"), newText: "x" }],
          status: "pending",
          rawInput: { path: "out.txt", content: "x" },
        },
        options: [
          { optionId: "allow-once", name: "Allow", kind: "allow_once" },
          { optionId: "allow-always", name: "Always allow write_file in this session", kind: "allow_always" },
          { optionId: "reject-once", name: "Reject", kind: "reject_once" },
          { optionId: "reject-always", name: "Always reject write_file in this session", kind: "reject_always" },
        ],
      },
      {
        sessionId: "session-1",
        toolCall: {
          toolCallId: "call_c",
          title: "Run rm -rf /",
          name: "run_command",
          kind: "execute",
          status: "pending",
          rawInput: { command: "rm -rf /" },
        },
        options: [
          { optionId: "allow-once", name: "Allow", kind: "allow_once" },
          { optionId: "allow-always", name: "Always allow run_command in this session", kind: "allow_always" },
          { optionId: "reject-once", name: "Reject", kind: "reject_once" },
          { optionId: "reject-always", name: "Always reject run_command in this session", kind: "reject_always" },
        ],
      },
    ])
    expect(updates).toEqual([
      { sessionUpdate: "session_info_update", title: "go" },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "write allowed, command denied" } },
    ])
  })
})

describe("session/load", () => {
  const sid = SessionId.make("20250101T000000-abcdef12")
  const t = "2025-01-01T00:00:00.000Z"
  const stored: SessionStore.LoadedSession = {
    header: { type: "session", version: 1, id: sid, createdAt: t, cwd: PROJECT },
    recovery: {},
    events: [
      { seq: 1, time: t, type: "turn/start", data: {} },
      {
        seq: 2,
        time: t,
        type: "user/message",
        data: {
          message: {
            id: "msg_u" as never,
            role: "user",
            content: [{ type: "text", text: "list files" }],
            source: { kind: "user" },
          },
        },
      },
      {
        seq: 3,
        time: t,
        type: "assistant/message",
        data: {
          finish: { kind: "tool-calls" },
          message: {
            id: "msg_a" as never,
            role: "assistant",
            content: [
              { type: "reasoning", text: "use the tool" },
              { type: "text", text: "Listing." },
              { type: "tool-call", id: "call_1", name: "list_files", arguments: '{"path":"."}' },
              { type: "tool-call", id: "call_2", name: "run_command", arguments: '{"command":"ls"}' },
            ],
            source: { kind: "model", provider: "p", model: "m" },
          },
        },
      },
      { seq: 4, time: t, type: "tool/call", data: { callId: "call_1", name: "list_files", arguments: '{"path":"."}' } },
      {
        seq: 5,
        time: t,
        type: "tool/result",
        data: {
          message: {
            id: "msg_t1" as never,
            role: "user",
            content: [{ type: "tool-result", toolCallId: "call_1", content: "a.txt" }],
            source: { kind: "tool", callId: "call_1" as never },
          },
        },
      },
      {
        seq: 6,
        time: t,
        type: "tool/result",
        data: {
          message: {
            id: "msg_t2" as never,
            role: "user",
            content: [{ type: "tool-result", toolCallId: "call_2", content: "denied", isError: true }],
            source: { kind: "tool", callId: "call_2" as never },
          },
        },
      },
      { seq: 7, time: t, type: "turn/end", data: { reason: "completed" } },
    ],
  }

  it("replays the stored history as session/update before it answers, then serves prompts", async () => {
    const h = await start([play([end("completed")])], new Map([[sid, stored]]))
    const [beforeAnswer, response] = await client(h.wire, async (ctx, updates) => {
      await init(ctx)
      await ctx.request("session/load", { sessionId: sid, cwd: PROJECT, mcpServers: [] })
      const beforeAnswer = updates.map((u) => u.update)
      const response = await ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "x" }] })
      return [beforeAnswer, response] as const
    })
    expect(beforeAnswer).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "list files" } },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "use the tool" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Listing." } },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_1",
        title: "List .",
        name: "list_files",
        kind: "search",
        status: "completed",
        rawInput: { path: "." },
        locations: [{ path: PROJECT }],
        content: [{ type: "content", content: { type: "text", text: "a.txt" } }],
      },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_2",
        title: "Run ls",
        name: "run_command",
        kind: "execute",
        status: "failed",
        rawInput: { command: "ls" },
        content: [{ type: "content", content: { type: "text", text: "denied" } }],
      },
      { sessionUpdate: "session_info_update", title: "list files" },
    ])
    expect(response).toEqual({ stopReason: "end_turn" })
  })

  it("answers an unknown session id with a not-found error naming it", async () => {
    const h = await start([])
    const error = await client(h.wire, async (ctx) => {
      await init(ctx)
      return rejection(ctx.request("session/load", { sessionId: "gone", cwd: PROJECT, mcpServers: [] }))
    })
    expect(error).toEqual({ code: -32002, message: "session gone not found" })
  })
})

describe("bad input on the wire", () => {
  it("answers malformed JSON and unknown methods with errors and keeps serving", async () => {
    const h = await start([])
    await h.wire.writeRaw("{not json\n")
    await h.wire.writeRaw('{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}\n')
    await h.wire.writeRaw('{"jsonrpc":"2.0","id":8,"method":"session/fly","params":{}}\n')
    await h.wire.writeRaw(`{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":${JSON.stringify(PROJECT)},"mcpServers":[]}}\n`)
    // End of input closes the connection; the client waits for its answers first.
    while (h.wire.frames.length < 4) await new Promise((r) => setTimeout(r, 1))
    await h.wire.closeInput()
    await h.served
    expect(h.wire.frames).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      {
        jsonrpc: "2.0",
        id: 7,
        result: AcpServer.initializeResponse("9.9.9"),
      },
      {
        jsonrpc: "2.0",
        id: 8,
        error: { code: -32601, message: '"Method not found": session/fly', data: { method: "session/fly" } },
      },
      { jsonrpc: "2.0", id: 9, result: { sessionId: "session-1", modes: { currentModeId: "ask", availableModes: Modes.available } } },
    ])
  })
})
