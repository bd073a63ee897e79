/**
 * An editor's prompt as durable user content. turnlog advertises text and
 * embedded context only, so images, audio and binary resources are refused
 * with a message that says so rather than silently dropped.
 */
import { Either } from "effect"
import type * as acp from "@agentclientprotocol/sdk"
import type { TextBlock } from "@turnlog/protocol"

const text = (value: string): TextBlock => ({ type: "text", text: value })

export const toUserContent = (prompt: ReadonlyArray<acp.ContentBlock>): Either.Either<Array<TextBlock>, string> => {
  const blocks: Array<TextBlock> = []
  for (const block of prompt) {
    switch (block.type) {
      case "text":
        blocks.push(text(block.text))
        break
      case "resource": {
        const resource = block.resource
        if (!("text" in resource)) {
          return Either.left(`the embedded resource ${resource.uri} is binary; only text resources are supported`)
        }
        blocks.push(text(`<resource uri="${resource.uri}">\n${resource.text}\n</resource>`))
        break
      }
      case "resource_link":
        blocks.push(text(`[${block.name}](${block.uri})`))
        break
      case "image":
      case "audio":
        return Either.left(`${block.type} content is not supported (promptCapabilities.${block.type} is false)`)
    }
  }
  if (blocks.length === 0) return Either.left("the prompt has no content")
  return Either.right(blocks)
}
