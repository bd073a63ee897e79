// The interactive session's prompt history: per directory under the home,
// readable only by its owner, oldest first, surviving a torn last line.
import { appendFileSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as History from "../src/chat/History.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const home = () => {
  const dir = mkdtempSync(join(tmpdir(), "turnlog-history-"))
  dirs.push(dir)
  return dir
}

describe("the prompt history", () => {
  it("keeps each directory's prompts apart, multi-line ones whole, in a file only the owner reads", () => {
    const h = home()
    const here = History.fileFor(h, "/work/a")
    const there = History.fileFor(h, "/work/b")
    expect(here).not.toBe(there)
    expect(History.append(here, "first")).toBe(true)
    expect(History.append(here, "two\\nlines")).toBe(true)
    expect(History.append(there, "elsewhere")).toBe(true)
    expect(History.load(here)).toEqual(["first", "two\\nlines"])
    expect(History.load(there)).toEqual(["elsewhere"])
    expect(statSync(here).mode & 0o777).toBe(0o600)
    expect(statSync(join(h, "history")).mode & 0o777).toBe(0o700)
  })

  it("passes over a torn last line and keeps the latest prompts only", () => {
    const file = History.fileFor(home(), "/work")
    for (let i = 0; i < History.KEPT + 5; i++) History.append(file, `p${i}`)
    appendFileSync(file, `"torn`)
    const loaded = History.load(file)
    expect(loaded.length).toBe(History.KEPT)
    expect(loaded[0]).toBe("p5")
    expect(loaded.at(-1)).toBe(`p${History.KEPT + 4}`)
  })

  it("is empty where nothing was kept", () => {
    expect(History.load(History.fileFor(home(), "/nowhere"))).toEqual([])
  })
})
