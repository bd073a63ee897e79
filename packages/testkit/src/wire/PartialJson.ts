/**
 * The value a provider that only sends whole objects reports for arguments cut
 * short: the longest prefix of the streamed text that can be closed into valid
 * JSON, closed. Used where a wire format cannot carry partial argument text.
 */

/** The characters that close every open string and container of `prefix`; undefined mid-escape. */
const closers = (prefix: string): string | undefined => {
  const stack: Array<string> = []
  let inString = false
  let escaped = false
  for (const char of prefix) {
    if (inString) {
      if (escaped) escaped = false
      else if (char === "\\") escaped = true
      else if (char === '"') inString = false
      continue
    }
    if (char === '"') inString = true
    else if (char === "{") stack.push("}")
    else if (char === "[") stack.push("]")
    else if (char === "}" || char === "]") stack.pop()
  }
  if (escaped) return undefined
  return (inString ? '"' : "") + stack.reverse().join("")
}

const tryParse = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

/** The object a truncated argument text amounts to; `{}` when nothing of it can be closed. */
export const closePartialObject = (text: string): Record<string, unknown> => {
  for (let end = text.length; end > 0; end--) {
    const prefix = text.slice(0, end)
    const closing = closers(prefix)
    const parsed = closing === undefined ? undefined : tryParse(prefix + closing)
    if (parsed !== undefined) {
      const value = parsed.value
      return typeof value === "object" && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : {}
    }
  }
  return {}
}
