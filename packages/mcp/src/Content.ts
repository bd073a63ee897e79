/**
 * A tool result's content as the text the model and the log get: text as
 * given, and everything else (images, audio, resources, links) described in
 * one line each, since the log's tool results are text.
 */

type Block = { readonly type: string; readonly [key: string]: unknown }

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** Bytes held by base64 `data`. */
const bytes = (data: unknown): number => {
  const s = str(data) ?? ""
  const padding = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor((s.length * 3) / 4) - padding)
}

const describe = (block: Block): string => {
  switch (block.type) {
    case "text":
      return str(block.text) ?? ""
    case "image":
    case "audio":
      return `[${block.type} ${str(block.mimeType) ?? "of unknown type"}, ${bytes(block.data)} bytes]`
    case "resource_link":
      return `[resource link ${str(block.name) ?? ""} ${str(block.uri) ?? ""}]`.replace("  ", " ")
    case "resource": {
      const resource = (typeof block.resource === "object" && block.resource !== null ? block.resource : {}) as Record<
        string,
        unknown
      >
      const uri = str(resource.uri) ?? "(no uri)"
      const text = str(resource.text)
      if (text !== undefined) return `[resource ${uri}]\n${text}`
      return `[resource ${uri}, ${str(resource.mimeType) ?? "of unknown type"}, ${bytes(resource.blob)} bytes]`
    }
    default:
      return `[${block.type} content]`
  }
}

/** The result's content blocks joined by newlines; structured content alone is sent as its JSON. */
export const toText = (result: { readonly content?: unknown; readonly structuredContent?: unknown }): string => {
  const blocks = Array.isArray(result.content)
    ? (result.content.filter((b) => typeof b === "object" && b !== null && typeof b.type === "string") as Array<Block>)
    : []
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  return blocks.map(describe).join("\n")
}
