/**
 * One MCP server's tool as a tool of the agent's registry. The model is sent
 * the server's own input schema; the arguments go to the server as the model
 * wrote them (the server validates them). A tool the server marks read-only
 * (`readOnlyHint`) needs no permission, like the built-in reads; any other
 * asks, titled with the tool and its server. A call shows the paths its
 * arguments name (`path`, `file`, `filePath`, ... see `PATH_KEYS`), and its kind
 * from them and the annotations: `read` for a read-only tool, `edit` for one
 * that acts on a path, else `other`. Whatever goes wrong — an error
 * result, a stopped server, no answer in time — is a tool error the model sees,
 * one sentence that names the server.
 */
import type { Tool as McpToolSpec } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { ToolError, Tools } from "@turnlog/agent"
import * as Content from "./Content.js"
import type { CallFailed, Connection } from "./internal/Connection.js"

/** How the tool is named in errors: the server's own name for it, and the server. */
const where = (server: string, tool: string) => `${tool} on MCP server "${server}"`

const parseObject = (name: string, json: string): Effect.Effect<Record<string, unknown>, ToolError.InvalidArguments> => {
  if (json.trim() === "") return Effect.succeed({})
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (error) {
    return Effect.fail(
      new ToolError.InvalidArguments({
        tool: name,
        detail: `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      }),
    )
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? Effect.succeed(value as Record<string, unknown>)
    : Effect.fail(new ToolError.InvalidArguments({ tool: name, detail: "the arguments must be a JSON object" }))
}

const failure = (server: string, tool: string, timeoutMs: number) => (error: CallFailed): ToolError.ToolError =>
  error.reason === "timeout"
    ? new ToolError.ToolTimeout({ tool: where(server, tool), timeoutMs })
    : new ToolError.ToolFailed({ tool: where(server, tool), detail: error.detail })

/** Argument names whose string value (or array of strings) is a path the call acts on. */
export const PATH_KEYS: ReadonlyArray<string> = [
  "path",
  "paths",
  "file",
  "files",
  "filePath",
  "file_path",
  "filename",
  "fileName",
  "source",
  "destination",
]

/** The paths a call's arguments name, in `PATH_KEYS` order. */
export const pathsOf = (input: unknown): Array<string> => {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return []
  const args = input as Record<string, unknown>
  const paths: Array<string> = []
  for (const key of PATH_KEYS) {
    const value = args[key]
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === "string" && item !== "" && !paths.includes(item)) paths.push(item)
    }
  }
  return paths
}

/** `name` is the registry's (namespaced) name for `spec`, a tool of `connection`'s server. */
export const make = (connection: Connection, spec: McpToolSpec, name: string, callTimeoutMs: number): Tools.Tool => {
  const server = connection.server.name
  const title = spec.annotations?.title ?? spec.title ?? spec.name
  const readOnly = spec.annotations?.readOnlyHint === true
  // The call, its permission question and the terminal all show this one title.
  const shown = `${title} (MCP server ${server})`
  return {
    origin: `MCP server "${server}"`,
    spec: {
      name,
      description: spec.description ?? `${title} (a tool of the MCP server "${server}")`,
      parameters: spec.inputSchema as Record<string, unknown>,
    },
    display: (argumentsJson) => {
      const input = Tools.inputOf(argumentsJson)
      const paths = pathsOf(input)
      return { kind: readOnly ? "read" : paths.length > 0 ? "edit" : "other", title: shown, paths, input }
    },
    prepare: (argumentsJson) =>
      Effect.map(parseObject(name, argumentsJson), (args) => ({
        input: args,
        ...(readOnly ? {} : { permission: { kind: "command" as const, title: shown } }),
        run: connection.call(spec.name, args).pipe(
          Effect.mapError(failure(server, spec.name, callTimeoutMs)),
          Effect.flatMap((result) => {
            const text = Content.toText(result)
            return result.isError === true
              ? Effect.fail(new ToolError.ToolFailed({ tool: where(server, spec.name), detail: text || "the server reported an error" }))
              : Effect.succeed(text)
          }),
        ),
      })),
  }
}
