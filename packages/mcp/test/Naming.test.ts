import { describe, expect, it } from "@effect/vitest"
import { Content, Naming } from "@turnlog/mcp"

describe("tool names", () => {
  it("are <server>__<tool> in the characters every provider accepts", () => {
    expect(Naming.base("everything", "get-tiny-image")).toBe("everything__get-tiny-image")
    expect(Naming.base("my server", "add.numbers")).toBe("my_server__add_numbers")
    expect(Naming.base("1st", "x")).toBe("_1st__x")
    expect(Naming.base("s", "a".repeat(80))).toBe(`s__${"a".repeat(61)}`)
  })

  it("stay unique within a session, and at most 64 characters", () => {
    const taken = new Set<string>()
    expect(Naming.unique("a.b", "c", taken)).toBe("a_b__c")
    expect(Naming.unique("a b", "c", taken)).toBe("a_b__c_2")
    expect(Naming.unique("a-b", "c", taken)).toBe("a-b__c")
    const long = "t".repeat(70)
    expect(Naming.unique("s", long, taken)).toBe(`s__${"t".repeat(61)}`)
    expect(Naming.unique("s", `${long}x`, taken)).toBe(`s__${"t".repeat(59)}_2`)
  })
})

describe("tool result content", () => {
  it("text as given, other content described one line each, structured content alone as JSON", () => {
    expect(Content.toText({
      content: [
        { type: "text", text: "a" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///x", name: "x" },
        { type: "resource", resource: { uri: "file:///y", text: "why" } },
        { type: "resource", resource: { uri: "file:///z", blob: "AAA=", mimeType: "application/zip" } },
      ],
    })).toBe("a\n[audio audio/wav, 3 bytes]\n[resource link x file:///x]\n[resource file:///y]\nwhy\n[resource file:///z, application/zip, 2 bytes]")
    expect(Content.toText({ content: [], structuredContent: { n: 1 } })).toBe(`{"n":1}`)
  })
})
