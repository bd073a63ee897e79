/**
 * The client side of a scenario run: the agent's stdout tapped line by line
 * (every frame kept), and the scenario's steps played by the SDK's client —
 * requests, prompts cancelled after a number of updates, permission answers,
 * raw lines.
 */
import type { ChildProcess } from "node:child_process"
import * as acp from "@agentclientprotocol/sdk"
import * as Lines from "../Lines.js"
import type { Input, PermissionAnswer, Step } from "../Scenario.js"

/** Where the run lives: its workspace, and the session its seed made, if any. */
export interface Paths {
  readonly workspace: string
  readonly seededId?: string
}

/** The JSON-RPC id a frame carries, or `undefined` if it is not a JSON object with one. */
export const idOf = (frame: string): unknown => {
  try {
    const value = JSON.parse(frame) as { id?: unknown } | null
    return typeof value === "object" && value !== null && "id" in value ? value.id : undefined
  } catch {
    return undefined
  }
}

/**
 * The agent's stdout, with every line it writes kept, passed on line by line
 * to the SDK's client — except the answers to raw lines the runner wrote
 * itself (ids in `hidden`), which the client never asked for.
 */
export const tapLines = (frames: Array<string>, hidden: ReadonlySet<unknown>) =>
  Lines.tap((line) => {
    if (line.trim() !== "") frames.push(line)
    return hidden.size === 0 || !hidden.has(idOf(line))
  })

const answer = (request: acp.RequestPermissionRequest, choice: PermissionAnswer | undefined): acp.RequestPermissionResponse => {
  if (choice === undefined) throw new Error(`unexpected permission request for ${request.toolCall.title}`)
  if (choice === "cancelled") return { outcome: { outcome: "cancelled" } }
  const kind = choice === "allow"
    ? "allow_once"
    : choice === "allow-always"
    ? "allow_always"
    : choice === "reject-always"
    ? "reject_always"
    : "reject_once"
  const option = request.options.find((o) => o.kind === kind)
  if (option === undefined) throw new Error(`the permission request offers no ${kind} option`)
  return { outcome: { outcome: "selected", optionId: option.optionId } }
}

const waitUntil = async (condition: () => boolean, child: ChildProcess): Promise<void> => {
  while (!condition()) {
    if (child.exitCode !== null) throw new Error(`the agent exited (code ${child.exitCode}) while a frame was awaited`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

export const play = async (
  input: Input,
  paths: Paths,
  child: ChildProcess,
  frames: Array<string>,
  hidden: Set<unknown>,
  stream: acp.Stream,
  writeRaw: (text: string) => Promise<void>,
): Promise<void> => {
  const answers = [...(input.permissions ?? [])]
  const updates = new Map<string, number>()
  const onUpdate = new Set<() => void>()
  const client = acp.client({ name: "turnlog-scenario" })
    .onNotification("session/update", ({ params }) => {
      const kind = params.update.sessionUpdate
      if (kind !== "agent_message_chunk" && kind !== "agent_thought_chunk") return
      updates.set(params.sessionId, (updates.get(params.sessionId) ?? 0) + 1)
      for (const f of onUpdate) f()
    })
    .onRequest("session/request_permission", ({ params }) => answer(params, answers.shift()))
  await client.connectWith(stream, async (ctx) => {
    let current: string | undefined
    const outcome = async (n: number, step: Step, expect: "result" | "error" | undefined, p: Promise<unknown>) => {
      const settled = await p.then(
        (value) => ({ kind: "result" as const, value }),
        (error: unknown) => ({ kind: "error" as const, value: error }),
      )
      if (settled.kind !== (expect ?? "result")) {
        const detail = settled.value instanceof Error ? settled.value.message : JSON.stringify(settled.value)
        throw new Error(`step ${n + 1} (${step.step}): expected ${expect ?? "result"}, got ${settled.kind}: ${detail}`)
      }
      return settled.kind === "result" ? settled.value : undefined
    }
    for (const [n, step] of input.steps.entries()) {
      switch (step.step) {
        case "initialize":
          await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
          break
        case "newSession": {
          const cwd = (step.cwd ?? "<workspace>").split("<workspace>").join(paths.workspace)
          const response = await outcome(
            n,
            step,
            step.expect,
            ctx.request("session/new", { cwd, mcpServers: (step.mcpServers ?? []) as Array<acp.McpServer> }),
          )
          if (response !== undefined) current = (response as acp.NewSessionResponse).sessionId
          break
        }
        case "loadSession": {
          const sessionId = step.sessionId === "<session>" ? current : step.sessionId ?? paths.seededId
          if (sessionId === undefined) throw new Error(`step ${n + 1}: no session to load (no seed.jsonl)`)
          await outcome(
            n,
            step,
            step.expect,
            ctx.request("session/load", { sessionId, cwd: paths.workspace, mcpServers: [] }),
          )
          current = sessionId
          break
        }
        case "prompt": {
          const sessionId = step.sessionId ?? current
          if (sessionId === undefined) throw new Error(`step ${n + 1}: no session to prompt`)
          const before = updates.get(sessionId) ?? 0
          let cancel: (() => void) | undefined
          if (step.cancelAfter !== undefined) {
            const target = before + step.cancelAfter
            cancel = () => {
              if ((updates.get(sessionId) ?? 0) >= target && cancel !== undefined) {
                onUpdate.delete(cancel)
                cancel = undefined
                void ctx.notify("session/cancel", { sessionId })
              }
            }
            onUpdate.add(cancel)
          }
          await outcome(
            n,
            step,
            step.expect,
            ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: step.text }] }),
          )
          if (cancel !== undefined) {
            onUpdate.delete(cancel)
            throw new Error(`step ${n + 1}: the prompt ended before ${step.cancelAfter} answer chunks arrived to cancel after`)
          }
          break
        }
        case "request": {
          // "<session>" in the params is the current session's id, "<workspace>" the run's workspace.
          const params = JSON.parse(
            JSON.stringify(step.params ?? null).split("<workspace>").join(paths.workspace)
              .split("<session>").join(current ?? "<session>"),
          ) as unknown
          await outcome(n, step, step.expect, ctx.request(step.method, params))
          break
        }
        case "raw": {
          const answered = (frame: string) => idOf(frame) === step.id
          const seen = frames.filter(answered).length
          hidden.add(step.id)
          await writeRaw(`${step.line}\n`)
          await waitUntil(() => frames.filter(answered).length > seen, child)
          hidden.delete(step.id)
          break
        }
      }
    }
  })
}
