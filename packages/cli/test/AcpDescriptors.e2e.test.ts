// `turnlog acp` under a low descriptor limit: the real binary as a subprocess
// started under `ulimit -n`, the SDK's client on its stdio, the loopback
// provider behind a configured provider. A flood of session/new is refused
// with one sentence before descriptors run out, and the session opened first
// still answers its first prompt (which loads the provider's modules then).
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { BIN, cleanEnv, hasStackTrace, removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 })
afterAll(removeTempDirs)

const KEY = { LOCAL_TEST_KEY: "sk-fd-0123456789" }

const REFUSED =
  /^no new session is opened: \d+ of this process's (\d+) file descriptors are in use and (\d+) are kept for the sessions already open; close a session \(session\/close\) or raise the limit \(ulimit -n\)$/

describe("turnlog acp under a low descriptor limit", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  /** `turnlog acp` under `ulimit -n limit`, driven by the SDK's client until it exits after stdin closes. */
  const serve = async <A>(limit: number, drive: (ctx: acp.ClientContext, cwd: string) => Promise<A>) => {
    const home = tempDir("acp-fd")
    const cwd = tempDir("acp-fd-cwd")
    writeFileSync(
      join(home, "config.json"),
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
      }),
    )
    const child = spawn("sh", ["-c", `ulimit -n ${limit} && exec "$0" "$@"`, process.execPath, BIN, "acp"], {
      cwd,
      env: { ...cleanEnv(), TURNLOG_HOME: home, ...KEY },
      stdio: "pipe",
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    const writer = (Writable.toWeb(child.stdin) as WritableStream<Uint8Array>).getWriter()
    const stream = acp.ndJsonStream(
      new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) }),
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    )
    const result = await acp.client({ name: "turnlog-tests" })
      .onNotification("session/update", () => undefined)
      .connectWith(stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
        return drive(ctx, cwd)
      }).catch(async (e: unknown) => {
        await exited
        throw new Error(`${String(e)}; stderr: ${stderr}`)
      })
    await writer.close()
    return { result, code: await exited, stderr }
  }

  const newSession = (ctx: acp.ClientContext, cwd: string) =>
    ctx.request("session/new", { cwd, mcpServers: [] }).then(
      (r) => ({ ok: r.sessionId }),
      (e: acp.RequestError) => ({ error: e.message, code: e.code }),
    )

  it("a flood of session/new past the reserve is refused with one sentence; the open session's first prompt is answered", async () => {
    const { result, code, stderr } = await serve(128, async (ctx, cwd) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] })
      const outcomes = await Promise.all(Array.from({ length: 80 }, () => newSession(ctx, cwd)))
      server.enqueue({ blocks: [{ type: "text", text: "Still answering." }] })
      const answer = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Are you there?" }] })
      // The sessions that were opened work too.
      const other = outcomes.find((o) => "ok" in o) as { ok: string }
      server.enqueue({ blocks: [{ type: "text", text: "Me too." }] })
      const second = await ctx.request("session/prompt", { sessionId: other.ok, prompt: [{ type: "text", text: "And you?" }] })
      return { answer, second, outcomes }
    })
    expect(result.answer).toMatchObject({ stopReason: "end_turn" })
    expect(result.second).toMatchObject({ stopReason: "end_turn" })
    const opened = result.outcomes.filter((o) => "ok" in o)
    const refused = result.outcomes.filter((o): o is { error: string; code: number } => "error" in o)
    expect(opened.length).toBeGreaterThan(0)
    expect(refused.length).toBeGreaterThan(0)
    expect(opened.length + refused.length).toBe(80)
    for (const r of refused) {
      expect(r.code).toBe(-32000)
      expect(r.error).toMatch(REFUSED)
      expect(REFUSED.exec(r.error)!.slice(1)).toEqual(["128", "32"])
    }
    expect(code).toBe(0)
    expect(stderr).not.toContain("EMFILE")
    expect(hasStackTrace(stderr)).toBe(false)
  })

  it("under ulimit -n 64 with a pi-ai provider: it starts, opens a session, answers its prompts, and refuses a flood of session/new with one sentence", async () => {
    const { result, code, stderr } = await serve(64, async (ctx, cwd) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] })
      server.enqueue({ blocks: [{ type: "text", text: "First answer." }] })
      const first = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Hello?" }] })
      const outcomes = await Promise.all(Array.from({ length: 30 }, () => newSession(ctx, cwd)))
      server.enqueue({ blocks: [{ type: "text", text: "Still answering." }] })
      const second = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Are you there?" }] })
      return { first, second, outcomes }
    })
    expect(result.first).toMatchObject({ stopReason: "end_turn" })
    expect(result.second).toMatchObject({ stopReason: "end_turn" })
    const refused = result.outcomes.filter((o): o is { error: string; code: number } => "error" in o)
    expect(refused.length).toBeGreaterThan(0)
    for (const r of refused) {
      expect(r.code).toBe(-32000)
      expect(REFUSED.exec(r.error)?.slice(1)).toEqual(["64", "16"])
    }
    expect(code).toBe(0)
    expect(stderr).not.toContain("EMFILE")
    expect(hasStackTrace(stderr)).toBe(false)
  })
})
