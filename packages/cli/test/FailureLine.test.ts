import { describe, expect, it } from "vitest"
import * as FailureLine from "../src/FailureLine.js"

describe("a failed turn as it is said", () => {
  it("names the variable of a refused key: the config provider's, else a keyed built-in's", () => {
    const providers = { local: { api: "openai-completions", apiKeyEnv: "LOCAL_KEY" }, anthropic: { adapter: "ai-sdk" }, open: {} }
    expect(FailureLine.keyVariable(providers, "local/m")).toBe("LOCAL_KEY")
    expect(FailureLine.keyVariable(providers, "anthropic/claude-sonnet-4-5")).toBe("ANTHROPIC_API_KEY")
    expect(FailureLine.keyVariable(undefined, "google/gemini-2.5-flash")).toBe("GEMINI_API_KEY")
    expect(FailureLine.keyVariable(providers, "open/m")).toBeUndefined()
    expect(FailureLine.keyVariable(providers, "amazon-bedrock/m")).toBeUndefined()
  })

  it("reads the provider's message, gives the code, and for AUTH where the key came from", () => {
    const auth = { code: "AUTH" as const, message: '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}' }
    expect(FailureLine.turnFailed(auth, "LOCAL_KEY")).toBe(
      "the turn failed: 401 authentication_error: invalid x-api-key (AUTH); check the key in LOCAL_KEY",
    )
    expect(FailureLine.turnFailed(auth)).toBe("the turn failed: 401 authentication_error: invalid x-api-key (AUTH)")
    expect(FailureLine.turnFailed({ code: "SERVER", message: "502 bad gateway" }, "LOCAL_KEY")).toBe("the turn failed: 502 bad gateway (SERVER)")
    expect(FailureLine.turnFailed(undefined)).toBe("the turn failed: no cause reported")
  })
})
