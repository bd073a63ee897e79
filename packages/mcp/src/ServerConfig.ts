/**
 * How an MCP server is named and reached, in the Agent Client Protocol's own
 * shape (`session/new`'s `mcpServers`), so the config file's `mcpServers` and
 * an editor's list mean the same thing: a command started over stdio, or an
 * http (streamable) or sse endpoint.
 */
import { ParseResult, Schema } from "effect"

const NameValue = Schema.Struct({ name: Schema.String, value: Schema.String })
const NameValues = Schema.Array(NameValue).annotations({
  message: () => `expected a list of { "name": …, "value": … }`,
})
const Strings = Schema.Array(Schema.String).annotations({ message: () => "expected a list of strings" })

const Name = Schema.String.pipe(Schema.minLength(1, { message: () => "expected a non-empty server name" }))

const Url = Schema.String.pipe(
  Schema.filter((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol) || "expected an http:// or https:// URL"),
)

export const Stdio = Schema.Struct({
  type: Schema.optionalWith(Schema.Literal("stdio"), { exact: true }),
  name: Name,
  command: Schema.String.pipe(Schema.minLength(1, { message: () => "expected a command" })),
  args: Schema.optionalWith(Strings, { exact: true, default: () => [] }),
  env: Schema.optionalWith(NameValues, { exact: true, default: () => [] }),
})

export const Http = Schema.Struct({
  type: Schema.Literal("http"),
  name: Name,
  url: Url,
  headers: Schema.optionalWith(NameValues, { exact: true, default: () => [] }),
})

export const Sse = Schema.Struct({
  type: Schema.Literal("sse"),
  name: Name,
  url: Url,
  headers: Schema.optionalWith(NameValues, { exact: true, default: () => [] }),
})

const Any = Schema.Union(Stdio, Http, Sse)

/**
 * One server, decoded by its `type` (none means stdio), so a mistake is named
 * once at its field instead of once per kind of server.
 */
export const Server = Schema.transformOrFail(Schema.Unknown, Schema.typeSchema(Any), {
  strict: true,
  decode: (input, options, ast) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return ParseResult.fail(new ParseResult.Type(ast, input, "expected an object with a name and a command or a url"))
    }
    const type = (input as { readonly type?: unknown }).type
    switch (type) {
      case undefined:
      case "stdio":
        return ParseResult.decodeUnknown(Stdio)(input, options)
      case "http":
        return ParseResult.decodeUnknown(Http)(input, options)
      case "sse":
        return ParseResult.decodeUnknown(Sse)(input, options)
      default:
        return ParseResult.fail(
          new ParseResult.Pointer(
            "type",
            input,
            new ParseResult.Type(ast, type, `expected "stdio", "http" or "sse", got ${JSON.stringify(type)}`),
          ),
        )
    }
  },
  encode: (server) => ParseResult.succeed(server),
})
export type Server = typeof Server.Type
/** A server started as a child process over stdio. */
export type Stdio = typeof Stdio.Type

/** A list of servers; two with one name would make their tools indistinguishable. */
export const Servers = Schema.Array(Server).annotations({
  message: () => `expected a list of servers, e.g. [{ "name": "fs", "command": "npx", "args": ["-y", "some-mcp-server"] }]`,
}).pipe(
  Schema.filter((servers) => {
    const seen = new Set<string>()
    for (const server of servers) {
      if (seen.has(server.name)) return `two MCP servers are named "${server.name}"`
      seen.add(server.name)
    }
    return true
  }),
)
