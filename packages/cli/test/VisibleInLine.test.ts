// A newline in a session's cwd (or title) forged a row of `sessions` and a line
// of `show`'s header; in a one-line place it is escaped like ESC and CR.
import { describe, expect, it } from "vitest"
import { SessionId } from "@turnlog/protocol"
import { render } from "../src/commands/Sessions.js"
import { headerLine } from "../src/TranscriptText.js"
import { visible, visibleInLine } from "../src/Visible.js"

describe("text printed inside one line", () => {
  it("escapes newline and carriage return as well as the other controls", () => {
    expect(visibleInLine("/tmp/a\nb\r\x1b[2J")).toBe("/tmp/a\\x0ab\\x0d\\x1b[2J")
    expect(visible("/tmp/a\nb")).toBe("/tmp/a\nb")
  })

  it("keeps a sessions row on one line when the cwd and title hold newlines", () => {
    const forged = "/tmp/x\n20990101T000000-deadbeef  2099-01-01T00:00:00Z  9  idle  /etc  forged"
    const table = render([
      {
        id: SessionId.make("20250101T000000-0000f1f0"),
        cwd: forged,
        title: "two\nlines",
        createdAt: "2025-01-01T00:00:00.000Z",
        updatedAt: "2025-01-01T00:00:00.000Z",
        turns: 1,
        status: "idle",
      },
    ] as never)
    const lines = table.trimEnd().split("\n")
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain("/tmp/x\\x0a20990101T000000-deadbeef")
    expect(lines[1]!.endsWith("two\\x0alines")).toBe(true)
  })

  it("keeps show's header on one line", () => {
    expect(headerLine({ id: "s", cwd: "/tmp/x\nsession forged", createdAt: "2025-01-01T00:00:00.000Z" })).toBe(
      "session s  (/tmp/x\\x0asession forged, created 2025-01-01T00:00:00.000Z)",
    )
  })
})
