/**
 * The tools a session's calls are shown with: the registry's, and before
 * them the session's own (its MCP servers' tools), so an MCP call's update
 * and permission question carry that tool's title, kind and paths.
 */
import { Tools } from "@turnlog/agent"

export const tools = (registry: Tools.Service, own: ReadonlyArray<Tools.Tool> | undefined): Tools.Service => {
  if (own === undefined || own.length === 0) return registry
  const session = Tools.make(own)
  const names = new Set(own.map((t) => t.spec.name))
  return { ...registry, display: (call) => (names.has(call.name) ? session.display(call) : registry.display(call)) }
}
