/**
 * What changes from run to run — session and message ids, times, the temp
 * paths, the build's version, the hash of a system prompt (it holds the
 * directory and the date) — replaced by stable placeholders, so a
 * scenario's frames and logs compare byte for byte. Ids are numbered in order
 * of first appearance, the same way across stdout and the logs.
 */
const SESSION_ID = /\b\d{8}T\d{6}-[0-9a-f]{8}\b/g
const MESSAGE_ID = /\bmsg_[0-9a-f]{20}\b/g
const TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g
/** A system prompt's hash as `show` and `doctor` print it. */
const PROMPT_HASH = /\bsha256:[0-9a-f]{12}…/g

export interface Normalizer {
  readonly text: (value: string) => string
  readonly json: (value: unknown) => unknown
  /** One JSON line, parsed, normalised and written back compactly. */
  readonly line: (line: string) => string
}

export const make = (paths: ReadonlyArray<{ readonly path: string; readonly as: string }>): Normalizer => {
  const sessions = new Map<string, string>()
  const messages = new Map<string, string>()
  const number = (map: Map<string, string>, prefix: string) => (id: string) => {
    let name = map.get(id)
    if (name === undefined) {
      name = `<${prefix}-${map.size + 1}>`
      map.set(id, name)
    }
    return name
  }
  // Longest first, so a path inside another is replaced by its own name.
  const ordered = [...paths].sort((a, b) => b.path.length - a.path.length)
  const text = (value: string): string => {
    let out = value
    for (const { path, as } of ordered) out = out.split(path).join(as)
    return out
      .replace(SESSION_ID, number(sessions, "session"))
      .replace(MESSAGE_ID, number(messages, "msg"))
      .replace(TIME, "<time>")
      .replace(PROMPT_HASH, "sha256:<hash>…")
  }
  const json = (value: unknown): unknown => {
    if (typeof value === "string") return text(value)
    if (Array.isArray(value)) return value.map(json)
    if (typeof value === "object" && value !== null) {
      const out: Record<string, unknown> = {}
      for (const [key, v] of Object.entries(value)) {
        out[key] = key === "agentInfo" && typeof v === "object" && v !== null
          ? { ...(json(v) as object), version: "<version>" }
          : key === "system" && typeof v === "object" && v !== null && "hash" in v
          ? { ...(json(v) as object), hash: "<sha256>" }
          : json(v)
      }
      return out
    }
    return value
  }
  const line = (raw: string): string => {
    try {
      return JSON.stringify(json(JSON.parse(raw)))
    } catch {
      return text(raw)
    }
  }
  return { text, json, line }
}
