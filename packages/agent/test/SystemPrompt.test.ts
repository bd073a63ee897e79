// The system prompt: built from the default, the instruction files and the
// config's parts; sent with each request and recorded (hash and sources) in
// its request/start. And a loaded session keeping its model (`keepModel`).
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Jsonl } from "@turnlog/store"
import * as SystemPrompt from "../src/SystemPrompt.js"
import * as C from "./support/chunks.js"
import { setup, tempDir } from "./support/harness.js"

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

describe("SystemPrompt.make", () => {
  it.scoped("the instruction files: the home's, then from the repository root down, AGENTS.md before CLAUDE.md in a directory", () =>
    Effect.gen(function*() {
      const home = yield* tempDir()
      const repo = yield* tempDir()
      const cwd = path.join(repo, "a", "b")
      fs.mkdirSync(cwd, { recursive: true })
      fs.mkdirSync(path.join(repo, ".git"))
      fs.writeFileSync(path.join(home, "AGENTS.md"), "home\n")
      fs.writeFileSync(path.join(repo, "CLAUDE.md"), "root claude\n")
      fs.writeFileSync(path.join(repo, "a", "AGENTS.md"), "a agents\n")
      fs.writeFileSync(path.join(repo, "a", "CLAUDE.md"), "a claude\n")
      // Empty: nothing to say, so not a source.
      fs.writeFileSync(path.join(cwd, "AGENTS.md"), "  \n")
      const prompt = yield* SystemPrompt.make({ home, append: [{ text: "last", source: "config:appendSystem" }] })
        .build({ cwd, tools: [] })
      expect(prompt.sources).toEqual([
        "default",
        path.join(home, "AGENTS.md"),
        path.join(repo, "CLAUDE.md"),
        path.join(repo, "a", "AGENTS.md"),
        "config:appendSystem",
      ])
      expect(prompt.text).toContain(`## ${path.join(repo, "CLAUDE.md")}\n\nroot claude\n\n## ${path.join(repo, "a", "AGENTS.md")}\n\na agents`)
      expect(prompt.text).not.toContain("a claude")
      expect(prompt.text.endsWith("\n\nlast")).toBe(true)
      expect(prompt.text).toContain("You have no tools in this session")
    }))

  it.scoped("outside a repository only the working directory's own file is read", () =>
    Effect.gen(function*() {
      const outer = yield* tempDir()
      const cwd = path.join(outer, "inner")
      fs.mkdirSync(cwd)
      fs.writeFileSync(path.join(outer, "AGENTS.md"), "outer\n")
      fs.writeFileSync(path.join(cwd, "AGENTS.md"), "inner\n")
      const prompt = yield* SystemPrompt.make({ system: { text: "Be terse.", source: "config:system" } }).build({ cwd, tools: [] })
      expect(prompt).toEqual({
        text:
          `Be terse.\n\n# Instructions\n\nThe user keeps these instructions for work here (the later and the nearer to the working directory take precedence):\n\n## ${
            path.join(cwd, "AGENTS.md")
          }\n\ninner`,
        sources: ["config:system", path.join(cwd, "AGENTS.md")],
      })
    }))
})

describe("the loop", () => {
  it.scopedLive("sends the config's system prompt and records its hash and source in request/start", () =>
    Effect.gen(function*() {
      const h = yield* setup([C.reply("ok")], { config: { system: "You are a test." } })
      yield* h.prompt("hi")
      expect((yield* h.requests)[0]!.system).toBe("You are a test.")
      const start = (yield* h.events()).find((e) => e.type === "request/start")!
      expect(start.data).toEqual({
        provider: "scripted",
        model: "test-model",
        step: 1,
        attempt: 1,
        system: { hash: sha256("You are a test."), sources: ["config:system"] },
      })
    }))

  it.scopedLive("with keepModel a loaded session talks to the route of its last request, not the default", () =>
    Effect.gen(function*() {
      const home = yield* tempDir("turnlog-home-")
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const h = yield* setup([C.reply("One.")], { store: Jsonl.layerJsonl({ home }) })
        const id = yield* h.loop.createSession({ cwd: h.cwd, model: "other/big" })
        yield* h.prompt("first", id)
        return id
      }))
      const h = yield* setup([C.reply("Two."), C.reply("Three.")], { store: Jsonl.layerJsonl({ home }) })
      const loaded = yield* h.loop.load(first, { keepModel: true })
      expect(loaded.events.length).toBeGreaterThan(0)
      yield* h.prompt("second", first)
      yield* h.loop.load(first, {})
      yield* h.prompt("third", first)
      expect((yield* h.requests).map((r) => `${r.provider}/${r.model}`)).toEqual(["other/big", "scripted/test-model"])
    }))
})
