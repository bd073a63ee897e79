// A user message may hold an image (base64 and media type) beside its text;
// a log written before images existed decodes as it did.
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { SessionLog } from "@turnlog/protocol"

const decode = (line: string) => SessionLog.decodeEvent(JSON.parse(line))

describe("image content in a user message", () => {
  it("round-trips byte for byte", () => {
    const line =
      `{"seq":2,"time":"t","type":"user/message","data":{"message":{"id":"m1","role":"user","content":[{"type":"text","text":"what is it?"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"source":{"kind":"user"}}}}`
    const decoded = decode(line)
    if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
    expect(decoded.right.type === "user/message" && decoded.right.data.message.content[1]).toEqual({
      type: "image",
      data: "iVBORw0KGgo=",
      mimeType: "image/png",
    })
    expect(JSON.stringify(SessionLog.encodeEvent(decoded.right))).toBe(line)
  })

  it("leaves a log from before images decoding as it did", () => {
    const old =
      `{"seq":2,"time":"2025-06-01T00:00:00.000Z","type":"user/message","data":{"message":{"id":"m1","role":"user","content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}}}}`
    const decoded = decode(old)
    if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
    expect(JSON.stringify(SessionLog.encodeEvent(decoded.right))).toBe(old)
  })

  it("refuses an image without its media type, naming the field", () => {
    const decoded = decode(
      `{"seq":2,"time":"t","type":"user/message","data":{"message":{"id":"m1","role":"user","content":[{"type":"image","data":"AA=="}],"source":{"kind":"user"}}}}`,
    )
    expect(Either.isLeft(decoded) && String(decoded.left)).toContain(`["mimeType"]`)
  })
})
