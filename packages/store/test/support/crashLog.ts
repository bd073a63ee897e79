// The events the crash-test child writes, a pure function of the run, the seq
// its run started at and the seq: the parent regenerates them to check what
// survived each kill, byte for byte.
import { MessageId, makeToolResult, type SessionLog } from "@turnlog/protocol"
import { TIME } from "./fixtures.js"

const CYCLE = 14

export const crashEvent = (run: number, start: number, seq: number): SessionLog.SessionEvent => {
  const position = seq - start
  const turn = Math.floor(position / CYCLE)
  const callId = `call_${run}_${turn}`
  const base = { seq, time: TIME }
  switch (position % CYCLE) {
    case 0:
      return { ...base, type: "turn/start", data: {} }
    case 1:
      return {
        ...base,
        type: "user/message",
        data: {
          message: {
            id: MessageId.make(`msg_${run}_${turn}_u`),
            role: "user",
            content: [{ type: "text", text: `run ${run} turn ${turn}` }],
            source: { kind: "user" },
          },
        },
      }
    case 10:
      return {
        ...base,
        type: "assistant/message",
        data: {
          message: {
            id: MessageId.make(`msg_${run}_${turn}_a`),
            role: "assistant",
            content: [{ type: "tool-call", id: callId, name: "bash", arguments: '{"cmd":"true"}' }],
            source: { kind: "model", provider: "scripted", model: "crash", replayState: { response: { run, turn } } },
          },
          finish: { kind: "tool-calls" },
        },
      }
    case 11:
      return { ...base, type: "tool/call", data: { callId, name: "bash", arguments: '{"cmd":"true"}' } }
    case 12:
      return {
        ...base,
        type: "tool/result",
        data: { message: makeToolResult({ id: MessageId.make(`msg_${run}_${turn}_r`), callId, content: "ok" }) },
      }
    case 13:
      return { ...base, type: "turn/end", data: { reason: "completed" } }
    default:
      return {
        ...base,
        type: "assistant/chunk",
        data: { chunk: { type: "text-delta", index: 0, text: `r${run}/${seq} `.padEnd(400, "~") } },
      }
  }
}
