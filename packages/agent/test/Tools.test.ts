import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { SessionId } from "@turnlog/protocol"
import * as Builtins from "../src/Builtins.js"
import * as Tools from "../src/Tools.js"

const created: Array<string> = []
afterAll(() => {
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true })
})

const tempDir = (): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "turnlog-tools-")))
  created.push(dir)
  return dir
}

const setup = (options: Builtins.Options = {}) => {
  const root = tempDir()
  const cwd = path.join(root, "work")
  fs.mkdirSync(cwd)
  const tools = Tools.make(Builtins.tools(options))
  const context: Tools.ToolContext = { sessionId: SessionId.make("s-1"), callId: "call-1", cwd }
  const call = (name: string, args: unknown) => tools.prepare({ name, arguments: typeof args === "string" ? args : JSON.stringify(args) }, context)
  const run = (name: string, args: unknown) => Effect.flatMap(call(name, args), (p) => p.run)
  return { root, cwd, tools, call, run }
}

describe("tool specs", () => {
  it("describes the built-ins to the model as JSON Schema, in order", () => {
    const { tools } = setup()
    // exit_plan_mode is in the registry; a request offers it only in read-only mode (see Modes.test.ts).
    expect(tools.specs.map((s) => s.name)).toEqual([
      "read_file",
      "list_files",
      "edit_file",
      "write_file",
      "run_command",
      "todo",
      "exit_plan_mode",
    ])
    expect(tools.specs[3]!.parameters).toEqual({
      type: "object",
      required: ["path", "content"],
      properties: {
        path: { type: "string", description: "A path relative to the working directory" },
        content: { type: "string" },
      },
      additionalProperties: false,
    })
    expect(tools.specs[4]!.parameters).toMatchObject({ required: ["command"] })
  })
})

describe("arguments", () => {
  it.effect("malformed JSON is refused with the parser's message, before anything runs", () =>
    Effect.gen(function*() {
      const { call, cwd } = setup()
      const raw = `{"path": "a.txt", "content": "x"`
      let parseMessage = ""
      try {
        JSON.parse(raw)
      } catch (e) {
        parseMessage = (e as Error).message
      }
      const error = yield* Effect.flip(call("write_file", raw))
      expect(error._tag).toBe("InvalidArguments")
      expect(error.code).toBe("INVALID_ARGUMENTS")
      expect(error.message).toBe(`invalid arguments for write_file: the arguments are not valid JSON (${parseMessage})`)
      expect(fs.existsSync(path.join(cwd, "a.txt"))).toBe(false)
    }))

  it.effect("arguments that miss the schema name the missing field", () =>
    Effect.gen(function*() {
      const { call } = setup()
      const error = yield* Effect.flip(call("read_file", { file: "a.txt" }))
      expect(error._tag).toBe("InvalidArguments")
      expect(error.message).toContain(`["path"]`)
      expect(error.message).toContain("is missing")
    }))

  it.effect("an unknown tool name", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(setup().call("delete_everything", {}))
      expect(error.message).toBe(`unknown tool "delete_everything"`)
      expect(error.code).toBe("UNKNOWN_TOOL")
    }))

  it.effect("blank arguments mean none", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup()
      fs.writeFileSync(path.join(cwd, "b.txt"), "")
      fs.mkdirSync(path.join(cwd, "a"))
      expect(yield* run("list_files", "")).toBe("a/\nb.txt")
    }))
})

describe("file tools", () => {
  it.effect("read, list and write inside the working directory", () =>
    Effect.gen(function*() {
      const { cwd, call, run } = setup()
      fs.writeFileSync(path.join(cwd, "notes.txt"), "héllo\n")
      expect(yield* run("read_file", { path: "notes.txt" })).toBe("héllo\n")

      const prepared = yield* call("write_file", { path: "src/deep/a.ts", content: "export {}\n" })
      expect(prepared.permission).toEqual({ kind: "write", title: "Write src/deep/a.ts" })
      expect(prepared.input).toEqual({ path: "src/deep/a.ts", content: "export {}\n" })
      expect(fs.existsSync(path.join(cwd, "src"))).toBe(false) // prepare has no side effect
      expect(yield* prepared.run).toBe("wrote 10 bytes to src/deep/a.ts")
      expect(fs.readFileSync(path.join(cwd, "src/deep/a.ts"), "utf8")).toBe("export {}\n")

      expect(yield* run("list_files", {})).toBe("notes.txt\nsrc/")
      expect(yield* run("list_files", { path: "src" })).toBe("deep/")
      expect((yield* call("read_file", { path: "notes.txt" })).permission).toBeUndefined()
    }))

  it.effect("a missing file is a failed call naming the cause", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(setup().run("read_file", { path: "nope.txt" }))
      expect(error._tag).toBe("ToolFailed")
      expect(error.message).toContain("ENOENT")
    }))

  it.effect("a large file is cut at the cap and says so", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup({ readCapBytes: 10 })
      fs.writeFileSync(path.join(cwd, "big.txt"), "0123456789abcdef")
      expect(yield* run("read_file", { path: "big.txt" })).toBe("0123456789\n[file truncated: 6 more bytes]")
    }))
})

describe("confinement", () => {
  it.effect("paths that leave the working directory are refused, symlinks resolved", () =>
    Effect.gen(function*() {
      const { root, cwd, call } = setup()
      fs.writeFileSync(path.join(root, "secret.txt"), "secret")
      fs.symlinkSync(path.join(root, "secret.txt"), path.join(cwd, "link.txt"))
      fs.symlinkSync(root, path.join(cwd, "up"))
      fs.symlinkSync(path.join(root, "nowhere.txt"), path.join(cwd, "dangling.txt"))

      const refused = (name: string, args: unknown) => Effect.map(Effect.flip(call(name, args)), (e) => ({ tag: e._tag, code: e.code, message: e.message }))

      expect(yield* refused("read_file", { path: "../secret.txt" })).toEqual({
        tag: "PathOutsideCwd",
        code: "PATH_OUTSIDE_CWD",
        message: `path "../secret.txt" is outside the session directory ${cwd}`,
      })
      expect((yield* refused("read_file", { path: path.join(root, "secret.txt") })).code).toBe("PATH_OUTSIDE_CWD")
      expect(yield* refused("read_file", { path: "link.txt" })).toMatchObject({
        code: "PATH_OUTSIDE_CWD",
        message: `path "link.txt" is outside the session directory ${cwd} (it resolves to ${root}/secret.txt)`,
      })
      expect((yield* refused("write_file", { path: "up/new.txt", content: "x" })).code).toBe("PATH_OUTSIDE_CWD")
      expect((yield* refused("write_file", { path: "dangling.txt", content: "x" })).code).toBe("PATH_OUTSIDE_CWD")
      expect((yield* refused("list_files", { path: ".." })).code).toBe("PATH_OUTSIDE_CWD")
      expect(fs.existsSync(path.join(root, "nowhere.txt"))).toBe(false)
      expect(fs.existsSync(path.join(root, "new.txt"))).toBe(false)
    }))

  it.effect("a symlink that stays inside is followed", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup()
      fs.mkdirSync(path.join(cwd, "real"))
      fs.writeFileSync(path.join(cwd, "real/x.txt"), "inside")
      fs.symlinkSync(path.join(cwd, "real"), path.join(cwd, "alias"))
      expect(yield* run("read_file", { path: "alias/x.txt" })).toBe("inside")
    }))
})

describe("run_command", () => {
  it.live("runs in the working directory and returns its output", () =>
    Effect.gen(function*() {
      const { cwd, call } = setup()
      const prepared = yield* call("run_command", { command: "pwd; echo err >&2" })
      expect(prepared.permission).toEqual({ kind: "command", title: "Run pwd; echo err >&2" })
      expect(yield* prepared.run).toBe(`${cwd}\nerr\n`)
    }))

  it.live("a non-zero exit status is a failed call with its output", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(setup().run("run_command", { command: "echo oops; exit 3" }))
      expect(error._tag).toBe("ToolFailed")
      expect(error.message).toBe("run_command failed: exit status 3\noops\n")
    }))

  it.live("output beyond the cap is cut and counted", () =>
    Effect.gen(function*() {
      const { run } = setup({ outputCapBytes: 1000 })
      const output = yield* run("run_command", { command: "head -c 5000 /dev/zero | tr '\\0' a" })
      expect(output).toBe(`${"a".repeat(1000)}\n[output truncated: 4000 more bytes]`)
    }))

  it.live("a command that outlives its timeout is killed with its children", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup({ commandTimeoutMs: 300 })
      const error = yield* Effect.flip(run("run_command", { command: "echo started; sleep 1; touch late.txt" }))
      expect(error._tag).toBe("ToolTimeout")
      expect(error.code).toBe("TOOL_TIMEOUT")
      expect(error.message).toBe("run_command timed out after 300 ms and was stopped\nstarted\n")
      // Had the group survived, `late.txt` would appear once the sleep ends.
      yield* Effect.sleep("1500 millis")
      expect(fs.existsSync(path.join(cwd, "late.txt"))).toBe(false)
    }))

  it.live("the model may ask for a shorter timeout", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(setup().run("run_command", { command: "sleep 5", timeoutMs: 200 }))
      expect(error.message).toBe("run_command timed out after 200 ms and was stopped")
    }))
})

describe("custom tools", () => {
  it.effect("a defined tool decodes its schema and names clash", () =>
    Effect.gen(function*() {
      const add = Tools.define({
        name: "add",
        description: "Add two numbers",
        parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
        display: { kind: "other", title: (args) => `Add ${args.a} and ${args.b}` },
        prepare: (args) => Effect.succeed({ run: Effect.succeed(String(args.a + args.b)) }),
      })
      const tools = Tools.make([add])
      const context = { sessionId: SessionId.make("s"), callId: "c", cwd: "/" }
      const prepared = yield* tools.prepare({ name: "add", arguments: `{"a":2,"b":3}` }, context)
      expect(yield* prepared.run).toBe("5")
      const bad = yield* Effect.either(tools.prepare({ name: "add", arguments: `{"a":"2","b":3}` }, context))
      expect(Either.isLeft(bad) && bad.left._tag).toBe("InvalidArguments")
      expect(() => Tools.make([add, add])).toThrow(`two tools are named "add"`)
    }))
})

describe("display", () => {
  it("each built-in shows its kind, a title from its arguments and the paths it touches", () => {
    const { tools } = setup()
    const shown = (name: string, args: string) => tools.display({ name, arguments: args })
    expect(shown("read_file", `{"path":"notes.txt"}`)).toEqual({
      kind: "read",
      title: "Read notes.txt",
      paths: ["notes.txt"],
      input: { path: "notes.txt" },
    })
    expect(shown("list_files", `{}`)).toEqual({ kind: "search", title: "List .", paths: ["."], input: {} })
    expect(shown("write_file", `{"path":"out.txt","content":"x"}`)).toEqual({
      kind: "edit",
      title: "Write out.txt",
      paths: ["out.txt"],
      input: { path: "out.txt", content: "x" },
      changes: [{ path: "out.txt", newText: "x" }],
    })
    expect(shown("edit_file", `{"path":"a.ts","old_text":"let a","new_text":"const a"}`)).toEqual({
      kind: "edit",
      title: "Edit a.ts",
      paths: ["a.ts"],
      input: { path: "a.ts", old_text: "let a", new_text: "const a" },
      changes: [{ path: "a.ts", oldText: "let a", newText: "const a" }],
    })
    expect(shown("run_command", `{"command":"ls -la"}`)).toEqual({
      kind: "execute",
      title: "Run ls -la",
      paths: [],
      input: { command: "ls -la" },
    })
  })

  it("arguments that do not decode show by the tool's name and kind; an unknown tool as other", () => {
    const { tools } = setup()
    expect(tools.display({ name: "write_file", arguments: `{"path":"a.txt","co` })).toEqual({
      kind: "edit",
      title: "write_file",
      paths: [],
      input: `{"path":"a.txt","co`,
    })
    expect(tools.display({ name: "run_command", arguments: `{"command":7}` })).toEqual({
      kind: "execute",
      title: "run_command",
      paths: [],
      input: { command: 7 },
    })
    expect(tools.display({ name: "fetch_url", arguments: `{"url":"x"}` })).toEqual({
      kind: "other",
      title: "fetch_url",
      paths: [],
      input: { url: "x" },
    })
  })

  it.effect("a permission is asked under the call's display title", () =>
    Effect.gen(function*() {
      const { call } = setup()
      const prepared = yield* call("run_command", { command: "npm test" })
      expect(prepared.permission).toEqual({ kind: "command", title: "Run npm test" })
    }))
})
