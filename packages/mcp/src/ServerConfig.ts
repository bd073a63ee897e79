/**
 * How an MCP server is named and reached, in the Agent Client Protocol's own
 * shape (`session/new`'s `mcpServers`), so the config file's `mcpServers` and
 * an editor's list mean the same thing: a command started over stdio, or an
 * http (streamable) or sse endpoint.
 */
import { Schema } from "effect"

const NameValue = Schema.Struct({ name: Schema.String, value: Schema.String })

const Name = Schema.String.pipe(Schema.minLength(1, { message: () => "expected a non-empty server name" }))

const Url = Schema.String.pipe(
  Schema.filter((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol) || "expected an http:// or https:// URL"),
)

export const Stdio = Schema.Struct({
  type: Schema.optionalWith(Schema.Literal("stdio"), { exact: true }),
  name: Name,
  command: Schema.String.pipe(Schema.minLength(1, { message: () => "expected a command" })),
  args: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  env: Schema.optionalWith(Schema.Array(NameValue), { default: () => [] }),
})

export const Http = Schema.Struct({
  type: Schema.Literal("http"),
  name: Name,
  url: Url,
  headers: Schema.optionalWith(Schema.Array(NameValue), { default: () => [] }),
})

export const Sse = Schema.Struct({
  type: Schema.Literal("sse"),
  name: Name,
  url: Url,
  headers: Schema.optionalWith(Schema.Array(NameValue), { default: () => [] }),
})

export const Server = Schema.Union(Stdio, Http, Sse)
export type Server = typeof Server.Type

/** A list of servers; two with one name would make their tools indistinguishable. */
export const Servers = Schema.Array(Server).pipe(
  Schema.filter((servers) => {
    const seen = new Set<string>()
    for (const server of servers) {
      if (seen.has(server.name)) return `two MCP servers are named "${server.name}"`
      seen.add(server.name)
    }
    return true
  }),
)

/** Where the server runs, for messages: its command or its URL. */
export const describe = (server: Server): string =>
  server.type === "http" || server.type === "sse" ? server.url : [server.command, ...server.args].join(" ")
