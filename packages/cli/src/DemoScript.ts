/**
 * What the keyless demo plays: the scripted model's four responses, the
 * workspace file its tool call reads, and the session an older build left
 * behind (an assistant message with the flat version-1 replay state).
 */
import { makeMessageId, SessionLog } from "@turnlog/protocol"
import type { ScriptedCall } from "@turnlog/llm/Scripted"
import * as PiAiScript from "@turnlog/llm-pi-ai/PiAiScript"

export const ROUTE = "turnlog/demo"

export const NOTES_FILE = "notes.txt"
export const NOTES = [
  "turnlog keeps every session in an append-only log.",
  "A response cut off at the output limit never runs its half-streamed tool call.",
  "Replay state an old build wrote degrades one message, never the session.",
  "",
].join("\n")

export const PROMPTS = {
  cutOff: `Summarise ${NOTES_FILE} for me.`,
  resume: "You were cut off. Please go on.",
  legacy: "Pick up where we left off: what did we decide?",
} as const

const opts = (responseId: string) => ({ route: ROUTE, responseId })

/** The model's responses, in the order the demo's turns request them. */
export const calls: ReadonlyArray<ScriptedCall> = [
  // Turn 1: thinking, text, then a read_file call the output limit cuts off mid-arguments.
  PiAiScript.response(
    [
      { type: "reasoning", text: "The user wants a summary. I should read the file first.", signature: "sig-demo-1" },
      { type: "text", text: "I'll read the notes first." },
      { type: "tool-call", id: "call_cut", name: "read_file", arguments: `{"path":"${NOTES_FILE}"}`, open: true },
    ],
    "max-tokens",
    opts("resp_demo_1"),
  ),
  // Turn 2, step 1: the continuation asks for the file again, this time completely.
  PiAiScript.response(
    [
      { type: "text", text: "Picking up where I was cut off: reading the notes now." },
      { type: "tool-call", id: "call_read", name: "read_file", arguments: `{"path":"${NOTES_FILE}"}` },
    ],
    "tool-calls",
    opts("resp_demo_2"),
  ),
  // Turn 2, step 2: the answer, after the tool result.
  PiAiScript.response(
    [
      {
        type: "text",
        text: "The notes say three things: sessions live in an append-only log; a tool call cut off by the " +
          "output limit is never run; and replay state from an old build degrades one message instead of " +
          "breaking the session.",
      },
    ],
    "stop",
    opts("resp_demo_3"),
  ),
  // The legacy session's next turn.
  PiAiScript.response(
    [
      {
        type: "text",
        text: "We decided to keep the durable log as the source of truth. (That earlier answer came from an " +
          "older build; its replay state could not be used, so it was sent as plain content.)",
      },
    ],
    "stop",
    opts("resp_demo_4"),
  ),
]

/** The events of a session an older build wrote: one finished turn whose message has the flat version-1 state. */
export const legacyEvents = (time: string): Array<SessionLog.SessionEvent> =>
  SessionLog.stamp(1, [
    { type: "turn/start", data: {} },
    {
      type: "user/message",
      data: {
        message: {
          id: makeMessageId(),
          role: "user",
          content: [{ type: "text", text: "Should the durable log or the provider's state be the source of truth?" }],
          source: { kind: "user" },
        },
      },
    },
    { type: "request/start", data: { provider: "anthropic", model: "claude-3-7-sonnet-latest" } },
    {
      type: "assistant/message",
      data: {
        message: {
          id: makeMessageId(),
          role: "assistant",
          content: [
            { type: "reasoning", text: "Provider state can be lost or rejected; the log cannot." },
            { type: "text", text: "The durable log. Provider replay state only restores fidelity." },
          ],
          source: {
            kind: "model",
            provider: "anthropic",
            model: "claude-3-7-sonnet-latest",
            replayState: {
              kind: "pi-ai",
              version: 1,
              api: "anthropic-messages",
              provider: "anthropic",
              model: "claude-3-7-sonnet-latest",
              stopReason: "stop",
              blocks: [{ type: "thinking", thinkingSignature: "EqQBCkgIARABGAIiQL" }, { type: "text" }],
            },
          },
        },
        finish: { kind: "stop" },
        usage: { inputTokens: 40, outputTokens: 30 },
      },
    },
    { type: "turn/end", data: { reason: "completed" } },
  ], time)
