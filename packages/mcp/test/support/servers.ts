/**
 * The MCP servers the tests start: the public reference servers over stdio
 * (from the workspace's node_modules) and a small streamable-http server on
 * loopback built with the SDK's own server classes.
 */
import { randomUUID } from "node:crypto"
import { createServer, type Server as HttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { ServerConfig } from "@turnlog/mcp"

const modules = fileURLToPath(new URL("../../../../node_modules/@modelcontextprotocol/", import.meta.url))

export const everything = (name = "everything"): ServerConfig.Server => ({
  name,
  command: process.execPath,
  args: [`${modules}server-everything/dist/index.js`, "stdio"],
  env: [],
})

export const filesystem = (dir: string, name = "fs"): ServerConfig.Server => ({
  name,
  command: process.execPath,
  args: [`${modules}server-filesystem/dist/index.js`, dir],
  env: [],
})

/** `inputSchema` of the loopback server's one tool, exactly as it is served. */
export const ADD_SCHEMA = {
  type: "object",
  properties: { a: { type: "number", description: "first" }, b: { type: "number" } },
  required: ["a", "b"],
  additionalProperties: false,
}

const mcpServer = () => {
  const server = new Server({ name: "calc", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: "add.numbers", description: "Adds two numbers", inputSchema: ADD_SCHEMA }],
  }))
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = (request.params.arguments ?? {}) as { a?: unknown; b?: unknown }
    if (typeof args.a !== "number" || typeof args.b !== "number") {
      return { content: [{ type: "text", text: "a and b must be numbers" }], isError: true }
    }
    return { content: [{ type: "text", text: String(args.a + args.b) }] }
  })
  return server
}

/** A streamable-http MCP server on 127.0.0.1, closed with the scope; it answers with the token it is sent. */
export const httpServer = Effect.acquireRelease(
  Effect.promise(async () => {
    const transports = new Map<string, StreamableHTTPServerTransport>()
    const seenAuth: Array<string | undefined> = []
    const http: HttpServer = createServer(async (req, res) => {
      seenAuth.push(req.headers.authorization)
      const id = req.headers["mcp-session-id"]
      let transport = typeof id === "string" ? transports.get(id) : undefined
      if (transport === undefined) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void transports.set(sid, created),
        })
        await mcpServer().connect(created)
        transport = created
      }
      await transport.handleRequest(req, res)
    })
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
    const { port } = http.address() as AddressInfo
    return { http, url: `http://127.0.0.1:${port}/mcp`, seenAuth, transports }
  }),
  ({ http, transports }) =>
    Effect.promise(async () => {
      for (const t of transports.values()) await t.close()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }),
)

/** The same server over the older http+sse transport: GET /sse opens the stream, POST /messages carries requests. */
export const sseServer = Effect.acquireRelease(
  Effect.promise(async () => {
    const transports = new Map<string, SSEServerTransport>()
    const http: HttpServer = createServer(async (req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1")
      if (req.method === "GET" && url.pathname === "/sse") {
        const transport = new SSEServerTransport("/messages", res)
        transports.set(transport.sessionId, transport)
        await mcpServer().connect(transport)
        return
      }
      const transport = transports.get(url.searchParams.get("sessionId") ?? "")
      if (req.method === "POST" && url.pathname === "/messages" && transport !== undefined) {
        await transport.handlePostMessage(req, res)
        return
      }
      res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
    const { port } = http.address() as AddressInfo
    return { http, url: `http://127.0.0.1:${port}/sse`, transports }
  }),
  ({ http, transports }) =>
    Effect.promise(async () => {
      for (const t of transports.values()) await t.close()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }),
)

/** Whether a process with this id is running. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
