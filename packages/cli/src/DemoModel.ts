/**
 * What answers `turnlog acp` when there is no provider key: a canned reply
 * that says so and echoes the prompt, streamed like a real one (text deltas,
 * usage, a version-2 envelope) so that it is stored, replayed and shown like
 * any model's answer.
 */
import type { LlmRequest } from "@turnlog/llm/LlmAdapter"
import type { ScriptedCall } from "@turnlog/llm/Scripted"
import * as PiAiScript from "@turnlog/llm-pi-ai/PiAiScript"
import { KEY_HINT } from "./ModelChoice.js"

const lastUserText = (request: LlmRequest): string => {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!
    if (message.role !== "user" || message.source.kind !== "user") continue
    return message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ")
  }
  return ""
}

export const reply = (request: LlmRequest): ScriptedCall => {
  const prompt = lastUserText(request)
  const quoted = prompt.length > 200 ? `${prompt.slice(0, 200)}…` : prompt
  const text = `This is turnlog's scripted demo model: no provider key is set, so this answer is canned. ` +
    `You said: "${quoted}". To talk to a real model, ${KEY_HINT}.`
  return PiAiScript.response([{ type: "text", text }], "stop", { route: `${request.provider}/${request.model}` })
}
