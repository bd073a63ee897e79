// `turnlog acp` lets go of a session nobody prompts: the real binary as a
// subprocess, the SDK's client on its stdio, the loopback provider behind a
// configured provider, and `idleReleaseSeconds` set small. While it holds a
// session, another process is told the session is open in an editor; once it
// let go, the lock file is gone, `turnlog run --session` continues the session,
// and the editor's next prompt sends that process's turn to the provider and
// shows it in the editor before the prompt's own answer.
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { BIN, cleanEnv, hasStackTrace, removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 })
afterAll(removeTempDirs)

const KEY = { LOCAL_TEST_KEY: "sk-idle-0123456789" }

interface Served {
  readonly child: ChildProcess
  readonly stderr: () => string
  /** The session updates received so far, as [kind, text] (text for message chunks). */
  readonly updates: () => ReadonlyArray<readonly [string, string?]>
}

/** `turnlog acp` in `cwd` with `home`, driven by the SDK's client through `drive`, until it exits after stdin closes. */
const serve = async <A>(home: string, cwd: string, drive: (ctx: acp.ClientContext, served: Served) => Promise<A>) => {
  const child = spawn(process.execPath, [BIN, "acp"], { cwd, env: { ...cleanEnv(), TURNLOG_HOME: home, ...KEY }, stdio: "pipe" })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  const writer = (Writable.toWeb(child.stdin) as WritableStream<Uint8Array>).getWriter()
  const stream = acp.ndJsonStream(
    new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) }),
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  )
  const updates: Array<readonly [string, string?]> = []
  const result = await acp.client({ name: "turnlog-tests" })
    .onNotification("session/update", ({ params }) => {
      const update = params.update as { readonly sessionUpdate: string; readonly content?: { readonly text?: string } }
      updates.push(update.content?.text === undefined ? [update.sessionUpdate] : [update.sessionUpdate, update.content.text])
    })
    .connectWith(stream, (ctx) => drive(ctx, { child, stderr: () => stderr, updates: () => updates }))
  await writer.close()
  return { result, code: await exited, stderr }
}

/** Waits (real time, generously) until `test` holds. */
const until = async (what: string, test: () => boolean, timeoutMs = 60_000) => {
  const start = Date.now()
  while (!test()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const ask = (ctx: acp.ClientContext, sessionId: string, text: string) => ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })

describe("turnlog acp and an idle session", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  const home = (idleReleaseSeconds?: number) => {
    const dir = tempDir("acp-idle")
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        model: "local/small",
        providers: {
          local: {
            api: "anthropic-messages",
            baseUrl: server.baseUrl("anthropic-messages"),
            apiKeyEnv: "LOCAL_TEST_KEY",
            models: [{ id: "small", contextWindow: 16384, maxTokens: 1024 }],
          },
        },
        ...(idleReleaseSeconds === undefined ? {} : { idleReleaseSeconds }),
      }),
    )
    return dir
  }

  it("while the editor holds a session, `turnlog run --session` is told it is open in an editor, naming turnlog acp's pid and host", async () => {
    const dir = home()
    const cwd = tempDir("acp-idle-cwd")
    const { code } = await serve(dir, cwd, async (ctx, served) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] })
      server.enqueue({ blocks: [{ type: "text", text: "Held." }] })
      expect(await ask(ctx, sessionId, "hold it")).toMatchObject({ stopReason: "end_turn" })
      const refused = await turnlog(["run", "--session", sessionId, "may I?"], { cwd, env: { TURNLOG_HOME: dir, ...KEY } })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(
        `session ${sessionId} is open in an editor (turnlog acp, pid ${served.child.pid}) on host ${hostname()}`,
      )
      expect(hasStackTrace(refused.stderr)).toBe(false)
    })
    expect(code).toBe(0)
  })

  it("is let go after idleReleaseSeconds: another process continues it, and the next prompt sends that process's turn to the provider and to the editor", async () => {
    const dir = home(1)
    const cwd = tempDir("acp-idle-cwd")
    const { code, stderr } = await serve(dir, cwd, async (ctx, served) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] })
      const lock = join(dir, "sessions", `${sessionId}.lock`)
      server.enqueue({ blocks: [{ type: "text", text: "Answer one." }] })
      expect(await ask(ctx, sessionId, "Question one?")).toMatchObject({ stopReason: "end_turn" })

      await until("the lock file to go", () => !existsSync(lock))
      await until("the release to be said", () => served.stderr().includes(`session ${sessionId}: unused for 1 s, let go until its next prompt`))

      server.enqueue({ blocks: [{ type: "text", text: "Answer two." }] })
      const other = await turnlog(["run", "--session", sessionId, "Question two?"], { cwd, env: { TURNLOG_HOME: dir, ...KEY } })
      expect({ code: other.code, stdout: other.stdout }).toEqual({ code: 0, stdout: "Answer two.\n" })

      server.enqueue({ blocks: [{ type: "text", text: "Answer three." }] })
      const before = server.requests().length
      const shown = served.updates().length
      expect(await ask(ctx, sessionId, "Question three?")).toMatchObject({ stopReason: "end_turn" })
      // The editor is shown the turn run elsewhere (whole, as a reload shows it), then the prompt's own answer as it streams.
      expect(served.updates().slice(shown).filter(([kind]) => kind.endsWith("_message_chunk"))).toEqual([
        ["user_message_chunk", "Question two?"],
        ["agent_message_chunk", "Answer two."],
        ["agent_message_chunk", "Answer"],
        ["agent_message_chunk", " three."],
      ])
      const sent = server.requests()[before]!.body as { messages: ReadonlyArray<{ role: string; content: unknown }> }
      const texts = sent.messages.map((m) => ({
        role: m.role,
        text: (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content as Array<{ type: string; text?: string }>)
          .filter((b) => b.type === "text").map((b) => b.text).join(""),
      }))
      expect(texts).toEqual([
        { role: "user", text: "Question one?" },
        { role: "assistant", text: "Answer one." },
        { role: "user", text: "Question two?" },
        { role: "assistant", text: "Answer two." },
        { role: "user", text: "Question three?" },
      ])
      // Held again by the editor until it goes unused once more.
      expect(existsSync(lock)).toBe(true)
      await until("the lock file to go again", () => !existsSync(lock))
    })
    expect(code).toBe(0)
    expect(stderr).not.toContain("internal error")
  })

  it("session/close lets go at once, whatever idleReleaseSeconds says", async () => {
    const dir = home(3600)
    const cwd = tempDir("acp-idle-cwd")
    const { code } = await serve(dir, cwd, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] })
      server.enqueue({ blocks: [{ type: "text", text: "Closing." }] })
      await ask(ctx, sessionId, "one")
      const lock = join(dir, "sessions", `${sessionId}.lock`)
      expect(existsSync(lock)).toBe(true)
      await ctx.request("session/close", { sessionId })
      expect(existsSync(lock)).toBe(false)
    })
    expect(code).toBe(0)
  })
})
