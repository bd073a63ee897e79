/**
 * An editor's answer to a permission request that is not a permission outcome
 * (`{}`, `null`: the SDK does not check answers) counts as a rejection: the
 * tool does not run, the model sees PERMISSION_DENIED, and the turn goes on
 * and ends in the log.
 */
import * as acp from "@agentclientprotocol/sdk"
import { afterEach, describe, expect, it } from "vitest"
import { SessionLog } from "@turnlog/protocol"
import { cleanup, finish, start, text, toolCall } from "./realLoop.js"

afterEach(cleanup)

const args = '{"path":"a.txt","content":"x"}'
const write = { chunks: [...toolCall(0, "call_w", "write_file", args), finish("tool-calls")] }
const done = { chunks: [...text(0, "Not written."), finish("stop")] }

describe("a permission answer that is not a RequestPermissionResponse", () => {
  for (const [name, answer] of [["{}", {}], ["null", null]] as const) {
    it(`answer ${name} is a rejection: the turn goes on and ends, the log closes it`, async () => {
      const h = start([write, done])
      const [outcome, id] = await acp.client({ name: "test" })
        .onNotification("session/update", () => undefined)
        .onRequest("session/request_permission", () => answer as unknown as acp.RequestPermissionResponse)
        .connectWith(h.connect().client, async (ctx) => {
          await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
          const { sessionId } = await ctx.request("session/new", { cwd: h.cwd, mcpServers: [] })
          const outcome = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write" }] })
            .then(
              (r): unknown => r,
              (e: { code: number; message: string }) => ({ code: e.code, message: e.message.split("\n")[0] }),
            )
          return [outcome, sessionId] as const
        })
      const log = await h.log(id)
      const shape = log.events.flatMap((e) => SessionLog.isRawChunk(e.type) ? [] : e.type === "tool/result" ? [`tool/result ${e.data.code}`] : [e.type])
      expect({ outcome, shape }).toEqual({
        outcome: { stopReason: "end_turn" },
        shape: [
          "turn/start",
          "user/message",
          "request/start",
          "assistant/message",
          "tool/call",
          "tool/result PERMISSION_DENIED",
          "request/start",
          "assistant/message",
          "turn/end",
        ],
      })
    })
  }
})
