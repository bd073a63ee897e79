import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { ServerConfig } from "@turnlog/mcp"

const decode = (input: unknown) =>
  Either.mapLeft(
    Schema.decodeUnknownEither(ServerConfig.Servers, { errors: "all" })(input),
    (e) => ParseResult.ArrayFormatter.formatErrorSync(e).map((i) => `${i.path.join(".")}: ${i.message}`),
  )

describe("server configs, in the Agent Client Protocol's shape", () => {
  it("stdio (with or without a type), http and sse decode, lists defaulting to empty", () => {
    expect(decode([
      { name: "fs", command: "npx", args: ["-y", "x"], env: [{ name: "A", value: "1" }] },
      { type: "stdio", name: "b", command: "b" },
      { type: "http", name: "h", url: "https://example.com/mcp", headers: [{ name: "Authorization", value: "t" }] },
      { type: "sse", name: "s", url: "http://127.0.0.1:1/sse" },
    ])).toEqual(Either.right([
      { name: "fs", command: "npx", args: ["-y", "x"], env: [{ name: "A", value: "1" }] },
      { type: "stdio", name: "b", command: "b", args: [], env: [] },
      { type: "http", name: "h", url: "https://example.com/mcp", headers: [{ name: "Authorization", value: "t" }] },
      { type: "sse", name: "s", url: "http://127.0.0.1:1/sse", headers: [] },
    ]))
  })

  it("a mistake is named once, at its field", () => {
    expect(decode([{ name: "x" }])).toEqual(Either.left(["0.command: is missing"]))
    expect(decode([{ name: "x", command: "a", args: "b" }])).toEqual(Either.left(["0.args: expected a list of strings"]))
    expect(decode([{ type: "ws", name: "x", url: "ws://a" }])).toEqual(
      Either.left([`0.type: expected "stdio", "http" or "sse", got "ws"`]),
    )
    expect(decode([{ type: "http", name: "x", url: "ftp://a" }])).toEqual(
      Either.left(["0.url: expected an http:// or https:// URL"]),
    )
    expect(decode([{ name: "x", command: "a" }, { name: "x", command: "b" }])).toEqual(
      Either.left([`: two MCP servers are named "x"`]),
    )
  })
})
