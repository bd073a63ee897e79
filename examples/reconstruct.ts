// Reconstruct the native (pi-ai) messages of a history: one message written
// by the current build replays natively; one left by an older build, with the
// flat version-1 replay state, degrades to provider-neutral content and is
// reported as an INVALID_REPLAY_STATE diagnostic. The request is never refused.
import { Effect } from "effect"
import { History, type ReplayDiagnostic } from "@turnlog/history"
import { PiAiReplay } from "@turnlog/llm-pi-ai"
import { type Message, MessageId } from "@turnlog/protocol"

const route = { provider: "anthropic", model: "claude-sonnet-4-5" }

const current: Message = {
  id: MessageId.make("msg_current"),
  role: "assistant",
  content: [{ type: "text", text: "Hello again." }],
  source: {
    kind: "model",
    ...route,
    replayState: {
      response: { kind: "pi-ai", version: 2, api: "anthropic-messages", ...route, stopReason: "stop" },
      blocks: [{ type: "text" }],
    },
  },
}

const legacy: Message = {
  id: MessageId.make("msg_legacy"),
  role: "assistant",
  content: [{ type: "text", text: "Hello." }],
  source: {
    kind: "model",
    ...route,
    replayState: { kind: "pi-ai", version: 1, api: "anthropic-messages", ...route, stopReason: "stop", blocks: [{ type: "text" }] },
  },
}

const diagnostics: Array<ReplayDiagnostic> = []
const natives = await Effect.runPromise(
  History.reconstruct([legacy, current], PiAiReplay.codec, {
    targetRoute: "anthropic/claude-sonnet-4-5",
    report: (all) => Effect.sync(() => void diagnostics.push(...all)),
  }),
)
console.log(JSON.stringify({
  natives: natives.map((native) => ({ api: native.api, content: native.content })),
  diagnostics: diagnostics.map((d) => ({ code: d.code, messageId: d.messageId, reason: d.reason })),
}))
