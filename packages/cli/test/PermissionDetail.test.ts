import { describe, expect, it } from "vitest"
import type { Permissions } from "@turnlog/agent"
import * as PermissionDetail from "../src/PermissionDetail.js"

const request = (tool: string, input: unknown): Permissions.Request => ({
  sessionId: "s" as Permissions.Request["sessionId"],
  callId: "c1",
  tool,
  kind: "write",
  title: "t",
  input,
})

describe("what a permission question shows", () => {
  it("an edit: the passage removed and its replacement added; replace_all says every occurrence", () => {
    expect(PermissionDetail.of(request("edit_file", { path: "a", old_text: "x = 1\n", new_text: "x = 2\ny = 3\n" }))).toEqual({
      detail: ["-x = 1", "+x = 2", "+y = 3"],
      diff: true,
    })
    expect(PermissionDetail.of(request("edit_file", { path: "a", old_text: "a", new_text: "", replace_all: true }))).toEqual({
      detail: ["every occurrence:", "-a"],
      diff: true,
    })
  })

  it("a write or a command: its first eight lines, long lines cut; anything else as JSON", () => {
    const content = Array.from({ length: 10 }, (_, i) => (i === 0 ? "z".repeat(170) : `line ${i}`)).join("\n") + "\n"
    expect(PermissionDetail.of(request("write_file", { path: "a", content }))).toEqual({
      detail: [`${"z".repeat(160)}…`, "line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "… 2 more lines"],
      diff: false,
    })
    expect(PermissionDetail.of(request("run_command", { command: "npm test" }))).toEqual({ detail: ["npm test"], diff: false })
    expect(PermissionDetail.of(request("mcp_tool", { a: 1 }))).toEqual({ detail: ["{", '  "a": 1', "}"], diff: false })
  })

  it("a plan to carry out: its text, up to thirty lines", () => {
    const plan = Array.from({ length: 32 }, (_, i) => `${i + 1}. step`).join("\n")
    const shown = PermissionDetail.of(request("exit_plan_mode", { plan }))
    expect(shown.detail).toHaveLength(31)
    expect(shown.detail.slice(28)).toEqual(["29. step", "30. step", "… 2 more lines"])
  })
})
