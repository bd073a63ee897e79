import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { FailureCode, isFailureCode, isTransient, SessionLog, StreamChunk } from "@turnlog/protocol"

describe("FailureCode", () => {
  it("is transient exactly for the codes a later attempt of the same request may cure", () => {
    expect(FailureCode.literals.filter(isTransient)).toEqual(["RATE_LIMIT", "SERVER", "TIMEOUT", "TRANSPORT"])
  })

  it("reads an old log line whose code this build does not know, keeps it verbatim and never retries it", () => {
    const line = `{"seq":8,"time":"t","type":"turn/end","data":{"reason":"error","failure":{"message":"overloaded","code":"OVERLOADED","status":529}}}`
    const decoded = SessionLog.decodeEvent(JSON.parse(line))
    if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
    const event = decoded.right
    if (event.type !== "turn/end") throw new Error(event.type)
    expect(event.data.failure?.code).toBe("OVERLOADED")
    expect(isFailureCode(event.data.failure!.code)).toBe(false)
    expect(isTransient(event.data.failure!.code)).toBe(false)
    expect(JSON.stringify(SessionLog.encodeEvent(event))).toBe(line)
  })

  it("reads a known code as this build's code, so the loop acts on it", () => {
    const decoded = Schema.decodeUnknownSync(StreamChunk)({
      type: "finish",
      reason: { kind: "error", failure: { message: "503", code: "SERVER" } },
    })
    if (decoded.type !== "finish" || decoded.reason.kind !== "error") throw new Error(decoded.type)
    expect(isFailureCode(decoded.reason.failure.code)).toBe(true)
    expect(isTransient(decoded.reason.failure.code)).toBe(true)
  })

  it("refuses a code that is not a string", () => {
    const decoded = Schema.decodeUnknownEither(StreamChunk)({
      type: "finish",
      reason: { kind: "error", failure: { message: "503", code: 503 } },
    })
    expect(Either.isLeft(decoded)).toBe(true)
  })
})
