import { describe, expect, it } from "@effect/vitest"
import { formatRoute, parseRoute } from "@turnlog/protocol"

describe("Route", () => {
  it("splits at the first slash", () => {
    expect(parseRoute("openrouter/meta/llama-3")).toEqual({ provider: "openrouter", model: "meta/llama-3" })
    expect(parseRoute("nomodel")).toBe(undefined)
    expect(parseRoute("/x")).toBe(undefined)
    expect(parseRoute("x/")).toBe(undefined)
  })

  it("formats back to the text it was parsed from", () => {
    expect(formatRoute(parseRoute("openrouter/meta/llama-3")!)).toBe("openrouter/meta/llama-3")
  })
})
