/**
 * Names the model sees for MCP tools: `<server>__<tool>`, cut down to what
 * every provider accepts (letters, digits, `_` and `-`, starting with a
 * letter or `_`, at most 64 characters — Google's rule is the strictest), and
 * kept unique within a session by a numeric suffix.
 */

const MAX = 64

const clean = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, "_")

/** `<server>__<tool>` in the characters providers accept. */
export const base = (server: string, tool: string): string => {
  const joined = `${clean(server)}__${clean(tool)}`
  const started = /^[A-Za-z_]/.test(joined) ? joined : `_${joined}`
  return started.slice(0, MAX)
}

/** A name for `server`'s `tool` that is not in `taken`; it is added to `taken`. */
export const unique = (server: string, tool: string, taken: Set<string>): string => {
  const first = base(server, tool)
  let name = first
  for (let n = 2; taken.has(name); n++) {
    const suffix = `_${n}`
    name = `${first.slice(0, MAX - suffix.length)}${suffix}`
  }
  taken.add(name)
  return name
}
