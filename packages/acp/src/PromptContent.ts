/**
 * An editor's prompt as durable user content. turnlog advertises text,
 * embedded context and images: an image is kept as its bytes (base64) and
 * media type, and goes to the model when the model takes images (the agent
 * loop refuses it in one sentence otherwise). Audio and binary resources are
 * refused with a message that says so rather than silently dropped.
 */
import { Either } from "effect"
import type * as acp from "@agentclientprotocol/sdk"
import type { ImageBlock, TextBlock } from "@turnlog/protocol"

const text = (value: string): TextBlock => ({ type: "text", text: value })

/** The image types every provider that takes images accepts. */
export const IMAGE_TYPES: ReadonlyArray<string> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

const image = (block: acp.ImageContent, index: number): Either.Either<ImageBlock, string> => {
  if (!IMAGE_TYPES.includes(block.mimeType)) {
    return Either.left(
      `the image at prompt[${index}] is of type ${JSON.stringify(block.mimeType)}; supported image types are ${IMAGE_TYPES.join(", ")}`,
    )
  }
  if (block.data === "" || block.data.length % 4 !== 0 || !BASE64.test(block.data)) {
    return Either.left(`the image at prompt[${index}] has no data in base64 (an image given only by its uri is not fetched)`)
  }
  return Either.right({ type: "image", data: block.data, mimeType: block.mimeType })
}

export const toUserContent = (
  prompt: ReadonlyArray<acp.ContentBlock>,
): Either.Either<Array<TextBlock | ImageBlock>, string> => {
  const blocks: Array<TextBlock | ImageBlock> = []
  for (const [index, block] of prompt.entries()) {
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
      case "image": {
        const converted = image(block, index)
        if (Either.isLeft(converted)) return Either.left(converted.left)
        blocks.push(converted.right)
        break
      }
      case "audio":
        return Either.left(`${block.type} content is not supported (promptCapabilities.${block.type} is false)`)
    }
  }
  if (blocks.length === 0) return Either.left("the prompt has no content")
  return Either.right(blocks)
}
