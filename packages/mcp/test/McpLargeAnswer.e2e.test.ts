import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { SessionId } from "@turnlog/protocol"
import { McpServers } from "@turnlog/mcp"
import { alive } from "./support/servers.js"

const sdk = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/sdk/dist/esm/", import.meta.url))

/** A stdio server with one tool, `blob`, that answers with as many characters as it is asked for. */
const blobServer = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "turnlog-mcp-blob-"))
  const script = join(dir, "blob.mjs")
  writeFileSync(
    script,
    `import { Server } from ${JSON.stringify(`${sdk}server/index.js`)}
import { StdioServerTransport } from ${JSON.stringify(`${sdk}server/stdio.js`)}
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(`${sdk}types.js`)}
const server = new Server({ name: "blob", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: "blob", inputSchema: { type: "object", properties: { size: { type: "number" } } } }],
}))
server.setRequestHandler(CallToolRequestSchema, (request) => ({
  content: [{ type: "text", text: "x".repeat(request.params.arguments.size) }],
}))
await server.connect(new StdioServerTransport())
`,
  )
  return script
}

const run = (tool: { prepare: McpServers.Started["tools"][number]["prepare"] }, size: number) =>
  Effect.gen(function*() {
    const prepared = yield* tool.prepare(JSON.stringify({ size }), {
      sessionId: SessionId.make("s1"),
      callId: "c1",
      cwd: tmpdir(),
    })
    const outcome = yield* Effect.either(prepared.run)
    return Either.isRight(outcome) ? { ok: outcome.right.length } : { error: outcome.left.message }
  })

describe("an MCP answer over the transport's read limit", () => {
  it.live("is said to be too large, naming the tool, the server and the limit; the server answers the next call", () =>
    Effect.scoped(Effect.gen(function*() {
      const lines: Array<string> = []
      const service = yield* McpServers.make({ log: (line) => lines.push(line) })
      const started = yield* service.start([{ name: "big", command: process.execPath, args: [blobServer()], env: [] }], {
        cwd: tmpdir(),
      })
      expect(started.failures).toEqual([])
      const [tool] = started.tools
      expect(tool!.origin).toBe(`MCP server "big"`)
      const firstPid = started.servers[0]!.pid!
      expect(yield* run(tool!, 11 * 1024 * 1024)).toEqual({
        error: `blob on MCP server "big" failed: its answer was larger than the 10 MiB an MCP answer may be; `
          + "the server is started again for later calls",
      })
      expect(yield* run(tool!, 5)).toEqual({ ok: 5 })
      expect(yield* run(tool!, 1024 * 1024)).toEqual({ ok: 1024 * 1024 })
      expect(alive(firstPid)).toBe(false)
      expect(lines).toEqual([])
    })), 60_000)
})
