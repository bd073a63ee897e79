/** Closing argument text cut by the output limit, for formats that only carry whole objects. */
import { describe, expect, it } from "vitest"
import { closePartialObject } from "../src/wire/PartialJson.js"

describe("closePartialObject", () => {
  it.each([
    ['{"path":"/tmp/x","content":"hel', { path: "/tmp/x", content: "hel" }],
    ['{"path":"/tmp/x","con', { path: "/tmp/x" }],
    ['{"path":"/tmp/x",', { path: "/tmp/x" }],
    ['{"a":{"b":[1,2', { a: { b: [1, 2] } }],
    ['{"a":tr', {}],
    ['{"quote":"say \\"hi', { quote: 'say "hi' }],
    ['{"slash":"a\\', { slash: "a" }],
    ['{"done":true}', { done: true }],
    ["", {}],
    ["[1,2", {}],
  ])("%j closes to %j", (text, expected) => {
    expect(closePartialObject(text)).toEqual(expected)
  })
})
