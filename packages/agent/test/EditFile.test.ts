// `edit_file`: an exact passage replaced through the same confinement and
// temp-and-rename as `write_file`, refused with a sentence when the passage is
// absent or not unique, and the unified diff of what changed.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck } from "effect"
import { SessionId } from "@turnlog/protocol"
import * as Builtins from "../src/Builtins.js"
import * as TextEdit from "../src/internal/TextEdit.js"
import * as Tools from "../src/Tools.js"

const created: Array<string> = []
afterAll(() => {
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true })
})

const setup = () => {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "turnlog-edit-")))
  created.push(cwd)
  const tools = Tools.make(Builtins.tools())
  const context: Tools.ToolContext = { sessionId: SessionId.make("s-1"), callId: "call-1", cwd }
  const edit = (args: unknown) => Effect.either(Effect.flatMap(tools.prepare({ name: "edit_file", arguments: JSON.stringify(args) }, context), (p) => p.run))
  const text = (result: Either.Either<string, { readonly message: string }>) => Either.isLeft(result) ? `error: ${result.left.message}` : result.right
  return { cwd, edit, text }
}

describe("edit_file", () => {
  it.effect("replaces the one occurrence and answers with the diff", () =>
    Effect.gen(function*() {
      const { cwd, edit, text } = setup()
      const file = path.join(cwd, "src", "a.ts")
      fs.mkdirSync(path.dirname(file))
      fs.writeFileSync(file, "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n")
      const result = yield* edit({ path: "src/a.ts", old_text: "four\n", new_text: "FOUR\nfour and a half\n" })
      expect(text(result)).toBe([
        "edited src/a.ts: 1 replacement",
        "--- a/src/a.ts",
        "+++ b/src/a.ts",
        "@@ -1,7 +1,8 @@",
        " one",
        " two",
        " three",
        "-four",
        "+FOUR",
        "+four and a half",
        " five",
        " six",
        " seven",
      ].join("\n"))
      expect(fs.readFileSync(file, "utf8")).toBe("one\ntwo\nthree\nFOUR\nfour and a half\nfive\nsix\nseven\neight\n")
    }))

  it.effect("refuses a passage that is not in the file, and leaves the file as it was", () =>
    Effect.gen(function*() {
      const { cwd, edit, text } = setup()
      fs.writeFileSync(path.join(cwd, "a.txt"), "alpha\nbeta\n")
      const result = yield* edit({ path: "a.txt", old_text: "gamma", new_text: "delta" })
      expect(text(result)).toBe(
        "error: edit_file failed: old_text does not occur in a.txt: read the file again and copy the passage exactly",
      )
      expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("alpha\nbeta\n")
    }))

  it.effect("refuses a passage found more than once, saying how many times, unless replace_all is set", () =>
    Effect.gen(function*() {
      const { cwd, edit, text } = setup()
      const file = path.join(cwd, "a.txt")
      fs.writeFileSync(file, "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n")
      const refused = yield* edit({ path: "a.txt", old_text: "x = 1", new_text: "x = 9" })
      expect(text(refused)).toBe(
        "error: edit_file failed: old_text occurs 3 times in a.txt: include more of the surrounding text to make it unique, or set replace_all",
      )
      expect(fs.readFileSync(file, "utf8")).toBe("x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n")

      const all = yield* edit({ path: "a.txt", old_text: "x = 1", new_text: "x = 9", replace_all: true })
      expect(text(all).split("\n")[0]).toBe("edited a.txt: 3 replacements")
      expect(fs.readFileSync(file, "utf8")).toBe("x = 9\ny = 2\nx = 9\nz = 3\nx = 9\n")
    }))

  it.effect("is confined to the directory like write_file", () =>
    Effect.gen(function*() {
      const { edit, text } = setup()
      const result = yield* edit({ path: "../outside.txt", old_text: "a", new_text: "b" })
      expect(text(result)).toMatch(/^error: path "\.\.\/outside\.txt" is outside the session directory /)
    }))

  it.effect("writes a new file over the name: another name of the old file keeps its content", () =>
    Effect.gen(function*() {
      const { cwd, edit } = setup()
      const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "turnlog-edit-outside-")))
      created.push(outside)
      fs.writeFileSync(path.join(outside, "secret.txt"), "keep me\n")
      fs.linkSync(path.join(outside, "secret.txt"), path.join(cwd, "linked.txt"))
      const result = yield* edit({ path: "linked.txt", old_text: "keep", new_text: "changed" })
      expect(Either.isRight(result)).toBe(true)
      expect(fs.readFileSync(path.join(cwd, "linked.txt"), "utf8")).toBe("changed me\n")
      expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("keep me\n")
    }))

  it.effect("a missing file is refused with the tool to create it", () =>
    Effect.gen(function*() {
      const { edit, text } = setup()
      const result = yield* edit({ path: "new.txt", old_text: "a", new_text: "b" })
      expect(text(result)).toBe("error: edit_file failed: new.txt does not exist: create it with write_file")
    }))

  it.effect("a CRLF file is matched by a passage written with plain newlines, and keeps its CRLF", () =>
    Effect.gen(function*() {
      const { cwd, edit } = setup()
      const file = path.join(cwd, "w.txt")
      fs.writeFileSync(file, "a\r\nb\r\nc\r\n")
      const result = yield* edit({ path: "w.txt", old_text: "a\nb\n", new_text: "a\nB\n" })
      expect(Either.isRight(result)).toBe(true)
      expect(fs.readFileSync(file, "utf8")).toBe("a\r\nB\r\nc\r\n")
    }))
})

describe("unified diff", () => {
  const diff = (before: string, passage: string, text: string) => {
    const edits = TextEdit.occurrences(before, passage).map((start) => ({ start, end: start + passage.length, text }))
    return TextEdit.unifiedDiff("f", before, edits).split("\n").slice(2)
  }

  it("says when the last line has no newline", () => {
    expect(diff("a\nb", "b", "c")).toEqual(["@@ -1,2 +1,2 @@", " a", "-b", "\\ No newline at end of file", "+c", "\\ No newline at end of file"])
  })

  it("a replacement that removes a newline changes the line it joins", () => {
    expect(diff("a\nb\nc\n", "a\n", "x")).toEqual(["@@ -1,3 +1,2 @@", "-a", "-b", "+xb", " c"])
  })

  it("changes far apart are separate hunks, numbered in the new file after the earlier ones", () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n") + "\n"
    const edits = [
      { start: before.indexOf("l2\n"), end: before.indexOf("l2\n") + 3, text: "l2\nextra\n" },
      { start: before.indexOf("l18\n"), end: before.indexOf("l18\n") + 4, text: "" },
    ]
    expect(TextEdit.unifiedDiff("f", before, edits).split("\n").slice(2)).toEqual([
      "@@ -1,5 +1,6 @@",
      " l1",
      " l2",
      "+extra",
      " l3",
      " l4",
      " l5",
      "@@ -15,6 +16,5 @@",
      " l15",
      " l16",
      " l17",
      "-l18",
      " l19",
      " l20",
    ])
  })

  it("a deletion of every line reads as lines removed from line 1 to none", () => {
    expect(diff("a\nb\n", "a\nb\n", "")).toEqual(["@@ -1,2 +0,0 @@", "-a", "-b"])
  })
})

/** Applies a unified diff as `patch` would, checking every context and removed line against `before`. */
const applyPatch = (before: string, diff: string): string => {
  const lines = before.match(/[^\n]*\n|[^\n]+$/g) ?? []
  if (diff === "") return before
  const d = diff.split("\n").slice(2)
  const out: Array<string> = []
  let at = 0
  let i = 0
  while (i < d.length) {
    const [, oldStart, oldCount, newStart, newCount] = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(d[i]!)!.map(Number)
    const from = oldCount === 0 ? oldStart! : oldStart! - 1
    while (at < from) out.push(lines[at++]!)
    expect(out.length).toBe(newCount === 0 ? newStart : newStart! - 1)
    i++
    while (i < d.length && !d[i]!.startsWith("@@")) {
      const line = d[i]!
      const noNewline = d[i + 1] === "\\ No newline at end of file"
      const text = line.slice(1) + (noNewline ? "" : "\n")
      if (line[0] !== "+") expect(lines[at++]).toBe(text)
      if (line[0] !== "-") out.push(text)
      i += noNewline ? 2 : 1
    }
  }
  while (at < lines.length) out.push(lines[at++]!)
  return out.join("")
}

describe("unified diff, against a patch applier", () => {
  it("applied to the old text, the diff gives the new text, for any passage and replacement", () => {
    const text = (max: number) => FastCheck.array(FastCheck.constantFrom("a", "b", "\n"), { maxLength: max }).map((c) => c.join(""))
    FastCheck.assert(
      FastCheck.property(text(60), FastCheck.nat(), FastCheck.nat(), text(10), (before, x, y, replacement) => {
        if (before === "") return
        const start = x % before.length
        const end = start + 1 + (y % Math.min(6, before.length - start))
        const passage = before.slice(start, end)
        const edits = TextEdit.occurrences(before, passage).map((s) => ({ start: s, end: s + passage.length, text: replacement }))
        const after = TextEdit.apply(before, edits)
        const diff = TextEdit.unifiedDiff("f", before, edits)
        expect(applyPatch(before, diff)).toBe(after)
        expect(diff === "").toBe(after === before)
      }),
      { numRuns: 2000 },
    )
  })
})
