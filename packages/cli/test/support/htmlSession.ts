/**
 * A session with everything the HTML page marks, as log events: a prompt and
 * an answer that try to run markup (`<script>`, `<img onerror>`, a remote
 * image), a response cut at the output limit while calling a tool, an answer
 * with flat version-1 replay state (degraded: INVALID_REPLAY_STATE), a
 * provider's refusal (`replay/degrade`) and a retried attempt, a compaction
 * between turns, a long tool result and a failed one.
 */
import { SessionLog, type StreamChunk } from "@turnlog/protocol"

type Input = SessionLog.EventInput

export const HOSTILE_ANSWER = 'Here: <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2">\n\n' +
  "![tracker](http://127.0.0.1:9/track.png) and [a link](javascript:window.__pwned=3)\n\n```ts\nconst answer: number = 42 // the answer\n```"
export const HOSTILE_PROMPT = "Say <b>hello</b> <script>window.__pwned = 4</script>"
export const LONG_RESULT = Array.from({ length: 300 }, (_, i) => `line ${i + 1} of the file`).join("\n")
export const LEGACY_REASON = "legacy flat version-1 pi-ai state"
export const REFUSAL_REASON = "Invalid signature in thinking block"

const user = (id: string, text: string): Input => ({
  type: "user/message",
  data: { message: { id: id as never, role: "user", content: [{ type: "text", text }], source: { kind: "user" } } },
})

const assistant = (
  id: string,
  content: ReadonlyArray<unknown>,
  finish: unknown,
  replayState?: unknown,
  usage = { inputTokens: 100, outputTokens: 20 },
): Input => ({
  type: "assistant/message",
  data: {
    message: {
      id,
      role: "assistant",
      content,
      source: { kind: "model", provider: "anthropic", model: "claude-sonnet-4-5", ...(replayState === undefined ? {} : { replayState }) },
    },
    finish,
    usage,
  } as never,
})

const request = (step = 1, attempt = 1): Input => ({
  type: "request/start",
  data: { provider: "anthropic", model: "claude-sonnet-4-5", step, attempt },
})

const result = (callId: string, content: string, isError = false): Input => ({
  type: "tool/result",
  data: {
    message: {
      id: `r-${callId}` as never,
      role: "user",
      content: [{ type: "tool-result", toolCallId: callId, content, ...(isError ? { isError: true } : {}) }],
      source: { kind: "tool", callId: callId as never },
    },
  },
})

const end = (reason: SessionLog.TurnEndReason): Input => ({ type: "turn/end", data: { reason } })
const start: Input = { type: "turn/start", data: {} }

const CUT_RESPONSE = {
  kind: "pi-ai",
  version: 2,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  stopReason: "length",
}

const cutChunks: ReadonlyArray<StreamChunk> = [
  { type: "block-start", index: 0, blockType: "text" },
  { type: "text-delta", index: 0, text: "I will write it now." },
  { type: "block-end", index: 0, block: { type: "text", text: "I will write it now." } },
  { type: "block-start", index: 1, blockType: "tool-call" },
  { type: "tool-call-delta", index: 1, id: "call_w", name: "write_file", argumentsDelta: '{"path":"out.txt","con' },
  {
    type: "finish",
    reason: { kind: "max-tokens" },
    replayState: { response: CUT_RESPONSE, blocks: [{ type: "text" }, { type: "tool-call" }] },
  },
]

const v1State = {
  kind: "pi-ai",
  version: 1,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-3-7-sonnet-latest",
  stopReason: "stop",
  blocks: [{ type: "thinking", thinkingSignature: "EqQBCkgIARABGAIiQL" }, { type: "text" }],
}

/** The events, numbered from seq 1, a second apart from 2026-01-01T10:00:00Z. */
export const events = (): Array<SessionLog.SessionEvent> => {
  const inputs: Array<Input> = [
    // 1: hostile markup, a tool call with a long result and a failed one.
    start,
    user("u1", HOSTILE_PROMPT),
    request(),
    assistant("a1", [
      { type: "reasoning", text: "The user wants <b>bold</b>; think <script>window.__pwned = 5</script>" },
      { type: "text", text: HOSTILE_ANSWER },
      { type: "tool-call", id: "call_r", name: "read_file", arguments: '{"path":"<img src=x onerror=alert(1)>.txt"}' },
      { type: "tool-call", id: "call_x", name: "run_command", arguments: '{"command":"false"}' },
    ], { kind: "tool-calls" }),
    { type: "tool/call", data: { callId: "call_r", name: "read_file", arguments: "{}" } },
    result("call_r", LONG_RESULT),
    { type: "tool/call", data: { callId: "call_x", name: "run_command", arguments: "{}" } },
    result("call_x", "exit code 1: <script>window.__pwned = 6</script>", true),
    request(2),
    assistant("a2", [{ type: "text", text: "Done." }], { kind: "stop" }),
    end("completed"),
    // 2: cut at the output limit while a tool call streamed.
    start,
    user("u2", "Write out.txt"),
    request(),
    SessionLog.batchOf(cutChunks),
    assistant("a3", [{ type: "text", text: "I will write it now." }], { kind: "max-tokens" }, {
      response: CUT_RESPONSE,
      blocks: [{ type: "text" }],
    }),
    end("max-tokens"),
    // Between turns: a compaction of turns 1 and 2.
    {
      type: "context/compaction",
      data: {
        summary: "The user asked for **bold** text and a file.",
        firstKeptSeq: 20,
        tokensBefore: 12000,
        tokensAfter: 800,
        provider: "anthropic",
        model: "claude-sonnet-4-5",
      },
    },
    // 3: an answer whose replay state an older build wrote.
    start,
    user("u3", "Which is the source of truth?"),
    request(),
    assistant("a4", [{ type: "reasoning", text: "The log." }, { type: "text", text: "The durable log." }], { kind: "stop" }, v1State),
    end("completed"),
    // 4: a provider refuses replay state; the retried attempt answers.
    start,
    user("u4", "Go on"),
    request(1, 1),
    {
      type: "replay/degrade",
      data: { messageIds: ["a4" as never], reason: REFUSAL_REASON, provider: "anthropic", model: "claude-sonnet-4-5" },
    },
    request(1, 2),
    assistant("a5", [{ type: "text", text: "Going on." }], { kind: "stop" }),
    end("completed"),
  ]
  const base = Date.parse("2026-01-01T10:00:00.000Z")
  return inputs.map((input, i) => ({ ...input, seq: i + 1, time: new Date(base + i * 1000).toISOString() }) as SessionLog.SessionEvent)
}

export const header = (id = "20260101T100000-0a1b2c3d"): SessionLog.SessionHeader => ({
  type: "session",
  version: 2,
  id: id as SessionLog.SessionHeader["id"],
  createdAt: "2026-01-01T10:00:00.000Z",
  cwd: "/work/<script>window.__pwned=7</script>",
})
