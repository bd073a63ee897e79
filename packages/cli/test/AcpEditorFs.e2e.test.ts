// The editor's file system and terminal through the real binary and the
// loopback Anthropic wire: an editor that offers `fs` and `terminal` in
// `initialize` is asked to read (its unsaved buffer reaches the model), to
// write (nothing lands on disk) and to run the command (the call embeds its
// terminal), each by the path confined to the session's directory.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type * as acp from "@agentclientprotocol/sdk"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { agent } from "./support/acpAgent.js"
import { loopbackHome } from "./support/loopbackHome.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 })
afterAll(removeTempDirs)

describe("an editor's file system and terminal", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("serve read_file, write_file and run_command; the model sees what the editor returned", async () => {
    const { home, env } = loopbackHome(server, {
      model: "loop/m",
      providers: {
        loop: {
          api: "anthropic-messages",
          models: [{ id: "m", contextWindow: 200000, maxTokens: 8192 }],
        },
      },
    }, "editorfs")
    const workspace = tempDir("editorfs-ws")
    // On disk the file says something else: the model must see the editor's buffer.
    writeFileSync(join(workspace, "notes.md"), "saved text\n")
    server.enqueue({
      blocks: [
        { type: "tool-call", id: "toolu_r", name: "read_file", arguments: JSON.stringify({ path: "notes.md" }) },
        { type: "tool-call", id: "toolu_w", name: "write_file", arguments: JSON.stringify({ path: "out.md", content: "new\n" }) },
        { type: "tool-call", id: "toolu_c", name: "run_command", arguments: JSON.stringify({ command: "make check" }) },
      ],
      finish: "tool-calls",
    })
    server.enqueue({ blocks: [{ type: "text", text: "Done." }] })
    const before = server.requests().length
    const asked: Array<[string, unknown]> = []
    const offers: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true }
    let sessionId = ""
    const run = await agent(home, workspace, undefined, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: offers })
      sessionId = (await ctx.request("session/new", { cwd: workspace, mcpServers: [] })).sessionId
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Check the notes." }] })
    }, {
      env: env,
      permission: () => ({ outcome: { outcome: "selected", optionId: "allow-once" } }),
      editor: (client) =>
        client
          .onRequest("fs/read_text_file", ({ params }) => (asked.push(["fs/read_text_file", params]), { content: "unsaved buffer text\n" }))
          .onRequest("fs/write_text_file", ({ params }) => (asked.push(["fs/write_text_file", params]), {}))
          .onRequest("terminal/create", ({ params }) => (asked.push(["terminal/create", params.cwd]), { terminalId: "t1" }))
          .onRequest("terminal/wait_for_exit", ({ params }) => (asked.push(["terminal/wait_for_exit", params]), { exitCode: 0 }))
          .onRequest("terminal/output", ({ params }) => (asked.push(["terminal/output", params]), { output: "all checks passed\n", truncated: false }))
          .onRequest("terminal/release", ({ params }) => (asked.push(["terminal/release", params]), {})),
    })
    expect(run.code, run.stderr).toBe(0)
    const terminal = { sessionId, terminalId: "t1" }
    expect(asked).toEqual([
      ["fs/read_text_file", { sessionId, path: join(workspace, "notes.md") }],
      ["fs/write_text_file", { sessionId, path: join(workspace, "out.md"), content: "new\n" }],
      ["terminal/create", workspace],
      ["terminal/wait_for_exit", terminal],
      ["terminal/output", terminal],
      ["terminal/release", terminal],
    ])
    // Written by the editor, not by turnlog.
    expect(existsSync(join(workspace, "out.md"))).toBe(false)
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("saved text\n")

    // The model's next request carries what the editor returned, as the tools' results.
    const sent = server.requests()[before + 1]!.body as { messages: ReadonlyArray<{ role: string; content: unknown }> }
    const results = sent.messages.flatMap((m) =>
      Array.isArray(m.content) ? m.content.flatMap((b: { type: string; content?: unknown }) => (b.type === "tool_result" ? [b.content] : [])) : []
    )
    expect(results).toEqual(["unsaved buffer text\n", "wrote 4 bytes to out.md", "all checks passed\n"])

    // The command's call shows the editor's terminal.
    const shown = run.updates.flatMap((u) => (u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_c" ? [u.content ?? null] : []))
    expect(shown).toEqual([
      null,
      [{ type: "terminal", terminalId: "t1" }],
      [{ type: "terminal", terminalId: "t1" }, { type: "content", content: { type: "text", text: "all checks passed\n" } }],
    ])
  })
})
