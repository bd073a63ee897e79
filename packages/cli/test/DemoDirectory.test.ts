// Each `turnlog demo` works in a directory of its own, even when two start in
// the same second: the second takes the next name instead of sharing (and
// summarising) the first one's sessions.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeDirectory } from "../src/commands/Demo.js"
import * as DemoScript from "../src/DemoScript.js"

const home = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-demo-dir-")))
afterAll(() => rmSync(home, { recursive: true, force: true }))

describe("the demo's directory", () => {
  it("is new each time, the stamp then -2, -3 for demos of the same second, each with its workspace and notes", () => {
    const parent = join(home, "demo")
    const made = [1, 2, 3].map(() => makeDirectory(parent, "20261130T090000Z"))
    expect(made).toEqual([
      join(parent, "20261130T090000Z"),
      join(parent, "20261130T090000Z-2"),
      join(parent, "20261130T090000Z-3"),
    ])
    for (const dir of made) {
      expect(readdirSync(dir)).toEqual(["workspace"])
      expect(readFileSync(join(dir, "workspace", DemoScript.NOTES_FILE), "utf8")).toBe(DemoScript.NOTES)
    }
  })
})
