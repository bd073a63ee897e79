// `turnlog acp` answers `initialize` before the agent has loaded (src/AcpEarly.ts),
// held here through the real binary: the editor reads exactly one answer to its
// `initialize`, the same answer the loaded server gives when asked again, and
// the requests written with it are served as if nothing had been read early.
import { spawn } from "node:child_process"
import { afterAll, describe, expect, it, vi } from "vitest"
import { BIN, cleanEnv, removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000 })
afterAll(removeTempDirs)

type Frame = { readonly id?: unknown; readonly method?: string; readonly result?: unknown; readonly error?: unknown }

describe("turnlog acp's early answer to initialize", () => {
  it("answers initialize once, as the loaded server does, and serves what was written with it", async () => {
    const home = tempDir("acp-early-home")
    const cwd = tempDir("acp-early-cwd")
    const script = textScript(home, ["hello from the script"])
    const child = spawn(process.execPath, [BIN, "acp"], {
      cwd,
      env: { ...cleanEnv(), TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: script },
      stdio: "pipe",
    })
    const frames: Array<Frame> = []
    const waiting: Array<{ readonly id: unknown; readonly resolve: (frame: Frame) => void }> = []
    let pending = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      pending += text
      const lines = pending.split("\n")
      pending = lines.pop() ?? ""
      for (const line of lines) {
        const frame = JSON.parse(line) as Frame
        frames.push(frame)
        if (frame.method === undefined) { for (const wait of waiting.filter((w) => w.id === frame.id)) wait.resolve(frame) }
      }
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    const answer = (id: number) =>
      new Promise<Frame>((resolve) => {
        const found = frames.find((f) => f.id === id && f.method === undefined)
        if (found !== undefined) resolve(found)
        else waiting.push({ id, resolve })
      })
    const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
    const initialize = { method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }

    // The editor's first two requests in one write, as fast as it can send them.
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, ...initialize })}\n` +
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd, mcpServers: [] } })}\n`,
    )
    const early = await answer(0)
    const created = await answer(1)
    const sessionId = (created.result as { sessionId: string }).sessionId
    send({ id: 2, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "hi" }] } })
    expect((await answer(2)).result).toMatchObject({ stopReason: "end_turn" })
    send({ id: 3, ...initialize })
    const again = await answer(3)
    child.stdin.end()
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))

    expect(frames[0]).toBe(early)
    expect(frames.filter((f) => f.id === 0)).toHaveLength(1)
    expect(early.result).toEqual(again.result)
    expect(early.result).toMatchObject({ protocolVersion: 1, agentInfo: { name: "turnlog" }, authMethods: [{ id: "provider-key" }] })
    expect(
      frames.filter((f) => f.method === "session/update").map((f) => (f as { params: { update: { content?: { text?: string } } } }).params.update.content?.text)
        .join(""),
    ).toBe("hello from the script")
    expect(stderr).not.toContain("differs")
    expect(code).toBe(0)
  })
})
