import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { makeMessageId, makeSessionId, makeToolResult, Message, MessageId, SessionLog, StreamChunk } from "@turnlog/protocol"

const roundTrip = (line: string) => {
  const decoded = SessionLog.decodeEvent(JSON.parse(line))
  if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
  return JSON.stringify(SessionLog.encodeEvent(decoded.right))
}

const decode = (line: string) => SessionLog.decodeEvent(JSON.parse(line))
const decodeOk = (line: string) => {
  const decoded = decode(line)
  if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
  return decoded.right
}

describe("SessionLog", () => {
  it("round-trips every event type byte for byte, replay state included", () => {
    const lines = [
      `{"seq":1,"time":"2026-01-01T00:00:00.000Z","type":"turn/start","data":{}}`,
      `{"seq":2,"time":"t","type":"user/message","data":{"message":{"id":"m1","role":"user","content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}}}}`,
      `{"seq":3,"time":"t","type":"request/start","data":{"provider":"anthropic","model":"claude","step":1}}`,
      `{"seq":4,"time":"t","type":"assistant/chunk","data":{"chunk":{"type":"finish","reason":{"kind":"max-tokens"},"replayState":{"response":{"kind":"pi-ai","version":2,"nested":[1,{"a":null}]},"blocks":[{"type":"text"},{"type":"tool-call"}]}}}}`,
      `{"seq":4,"time":"t","type":"assistant/chunks","data":{"entries":[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-deltas","index":0,"text":"Hello","lengths":[2,3]},{"type":"block-end-assembled","index":0},{"type":"tool-call-deltas","index":1,"id":"c","name":"n","arguments":"{}","lengths":[1,1]}]}}`,
      `{"seq":5,"time":"t","type":"assistant/message","data":{"message":{"id":"m2","role":"assistant","content":[{"type":"reasoning","text":"r"},{"type":"text","text":"a"}],"source":{"kind":"model","provider":"p","model":"m","replayState":{"kind":"pi-ai","version":1,"blocks":["x"]}}},"finish":{"kind":"max-tokens"},"usage":{"inputTokens":3,"outputTokens":4,"reasoningTokens":1}}}`,
      `{"seq":6,"time":"t","type":"tool/call","data":{"callId":"c1","name":"read_file","arguments":"{\\"path\\":"}}`,
      `{"seq":7,"time":"t","type":"tool/result","data":{"message":{"id":"m3","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":"boom","isError":true}],"source":{"kind":"tool","callId":"c1"}},"code":"TOOL_OUTCOME_UNKNOWN"}}`,
      `{"seq":8,"time":"t","type":"turn/end","data":{"reason":"error","failure":{"message":"nope","code":"AUTH","status":401}}}`,
    ]
    for (const line of lines) expect(roundTrip(line)).toBe(line)
  })

  it("round-trips the compaction and replay-repair events and the compaction request marker", () => {
    const lines = [
      `{"seq":9,"time":"t","type":"request/start","data":{"provider":"anthropic","model":"claude","step":2,"purpose":"compaction"}}`,
      `{"seq":10,"time":"t","type":"context/compaction","data":{"summary":"The user asked for a\\nrefactor.","firstKeptSeq":4,"tokensBefore":15100,"tokensAfter":5200,"provider":"anthropic","model":"claude"}}`,
      `{"seq":12,"time":"t","type":"session/mode","data":{"mode":"read-only"}}`,
      `{"seq":11,"time":"t","type":"replay/degrade","data":{"messageIds":["m2","m5"],"reason":"messages.1.content.0: Invalid \`signature\` in \`thinking\` block","provider":"anthropic","model":"claude"}}`,
    ]
    for (const line of lines) expect(roundTrip(line)).toBe(line)
    expect(SessionLog.EVENT_TYPES).toEqual([
      "turn/start",
      "user/message",
      "request/start",
      "assistant/chunk",
      "assistant/chunks",
      "assistant/message",
      "tool/call",
      "tool/result",
      "turn/end",
      "permission/rule",
      "session/mode",
      "session/reasoning",
      "session/fork",
      "context/compaction",
      "replay/degrade",
    ])
  })

  it("round-trips the fork and reasoning events, refuses an effort it does not know, and reads them from the latest", () => {
    const fork = `{"seq":4,"time":"t","type":"session/fork","data":{"forkedFrom":{"session":"s1","turn":2}}}`
    const effort = (e: string, seq: number) => `{"seq":${seq},"time":"t","type":"session/reasoning","data":{"effort":"${e}"}}`
    for (const line of [fork, effort("high", 5)]) expect(roundTrip(line)).toBe(line)
    expect(Either.isLeft(decode(effort("extreme", 1)))).toBe(true)
    expect(Either.isLeft(decode(`{"seq":4,"time":"t","type":"session/fork","data":{"forkedFrom":{"session":"s1","turn":0}}}`))).toBe(true)
    expect(SessionLog.reasoningOf([])).toBe("off")
    expect(SessionLog.reasoningOf([decodeOk(effort("high", 1)), decodeOk(effort("low", 2))])).toBe("low")
    expect(SessionLog.forkedFromOf([decodeOk(fork)])).toEqual({ session: "s1", turn: 2 })
    expect(SessionLog.forkedFromOf([])).toBeUndefined()
  })

  it("refuses a mode it does not know, and reads a session's mode from its latest session/mode event", () => {
    expect(Either.isLeft(decode(`{"seq":1,"time":"t","type":"session/mode","data":{"mode":"yolo"}}`))).toBe(true)
    const mode = (m: string, seq: number) => decodeOk(`{"seq":${seq},"time":"t","type":"session/mode","data":{"mode":"${m}"}}`)
    expect(SessionLog.modeOf([])).toBe("ask")
    expect(SessionLog.modeOf([mode("read-only", 1), mode("full-access", 2)])).toBe("full-access")
  })

  it("decodes a request/start of an older log unchanged: no purpose is added", () => {
    const decoded = SessionLog.decodeEvent({ seq: 3, time: "t", type: "request/start", data: { provider: "p", model: "m" } })
    expect(Either.getOrThrow(decoded)).toEqual({ seq: 3, time: "t", type: "request/start", data: { provider: "p", model: "m" } })
    expect(Object.keys(Either.getOrThrow(decoded).data)).toEqual(["provider", "model"])
  })

  it("refuses a compaction that keeps from no event, and a purpose it does not know", () => {
    const compaction = (firstKeptSeq: unknown) => ({
      seq: 5,
      time: "t",
      type: "context/compaction",
      data: { summary: "s", firstKeptSeq, tokensBefore: 10, tokensAfter: 2, provider: "p", model: "m" },
    })
    expect(Either.isRight(SessionLog.decodeEvent(compaction(1)))).toBe(true)
    expect(Either.isLeft(SessionLog.decodeEvent(compaction(0)))).toBe(true)
    expect(Either.isLeft(SessionLog.decodeEvent(compaction(1.5)))).toBe(true)
    const request = { seq: 3, time: "t", type: "request/start", data: { provider: "p", model: "m", purpose: "title" } }
    expect(Either.isLeft(SessionLog.decodeEvent(request))).toBe(true)
    const degrade = { seq: 6, time: "t", type: "replay/degrade", data: { messageIds: "m1", reason: "r", provider: "p", model: "m" } }
    expect(Either.isLeft(SessionLog.decodeEvent(degrade))).toBe(true)
  })

  it("refuses an unknown event type instead of skipping it", () => {
    expect(SessionLog.isEventType("turn/start")).toBe(true)
    expect(SessionLog.isEventType("turn/paused")).toBe(false)
    expect(Either.isLeft(SessionLog.decodeEvent({ seq: 1, time: "t", type: "turn/paused", data: {} }))).toBe(true)
  })

  it("names the raw chunk event types, one chunk or a batch, and nothing else", () => {
    expect(SessionLog.isRawChunk("assistant/chunk")).toBe(true)
    expect(SessionLog.isRawChunk("assistant/chunks")).toBe(true)
    expect(SessionLog.isRawChunk("assistant/message")).toBe(false)
    expect(SessionLog.isRawChunk(undefined)).toBe(false)
    expect(SessionLog.RAW_CHUNK_TYPES).toEqual(["assistant/chunk", "assistant/chunks"])
  })

  it("stamps contiguous seq from the next one, with one time", () => {
    const events = SessionLog.stamp(5, [{ type: "turn/start", data: {} }, { type: "turn/end", data: { reason: "completed" } }], "T")
    expect(events).toEqual([
      { seq: 5, time: "T", type: "turn/start", data: {} },
      { seq: 6, time: "T", type: "turn/end", data: { reason: "completed" } },
    ])
  })

  it("requires a model source on an assistant message", () => {
    const bad = { id: "m", role: "assistant", content: [], source: { kind: "user" } }
    expect(Either.isLeft(Schema.decodeUnknownEither(Message)(bad))).toBe(true)
  })

  it("omits optional fields rather than writing undefined", () => {
    const result = makeToolResult({ id: MessageId.make("m"), callId: "c", content: "ok" })
    expect(JSON.stringify(result)).toBe(
      `{"id":"m","role":"user","content":[{"type":"tool-result","toolCallId":"c","content":"ok"}],"source":{"kind":"tool","callId":"c"}}`,
    )
    const chunk = Schema.decodeUnknownSync(StreamChunk)({ type: "finish", reason: { kind: "stop" } })
    expect(Object.keys(chunk)).toEqual(["type", "reason"])
  })

  it("makes ids of the expected shapes", () => {
    expect(makeMessageId()).toMatch(/^msg_[0-9a-f]{20}$/)
    expect(makeSessionId(new Date("2026-11-30T03:04:05.678Z"))).toMatch(/^20261130T030405-[0-9a-f]{8}$/)
  })
})
