// The built-in tools at their edges: names that start with `..`, a command
// that leaves a job in the background, special files (named pipes), and a tree
// that changes while permission is asked.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { SessionId } from "@turnlog/protocol"
import * as Builtins from "../src/Builtins.js"
import { confine } from "../src/internal/confine.js"
import { replaceFile, writeInside } from "../src/internal/replace.js"
import * as Tools from "../src/Tools.js"

const created: Array<string> = []
afterAll(() => {
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true })
})

const setup = (options: Builtins.Options = {}) => {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "turnlog-builtins-")))
  created.push(cwd)
  const tools = Tools.make(Builtins.tools(options))
  const context: Tools.ToolContext = { sessionId: SessionId.make("s-1"), callId: "call-1", cwd }
  const call = (name: string, args: unknown) => tools.prepare({ name, arguments: typeof args === "string" ? args : JSON.stringify(args) }, context)
  const run = (name: string, args: unknown) => Effect.flatMap(call(name, args), (p) => p.run)
  return { cwd, call, run }
}

describe("confinement", () => {
  it.effect("a file whose name starts with `..` inside the working directory is not outside it", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup()
      fs.writeFileSync(path.join(cwd, "..notes.txt"), "inside")
      fs.mkdirSync(path.join(cwd, "...cache"))
      const read = yield* Effect.either(run("read_file", { path: "..notes.txt" }))
      expect(Either.isLeft(read) ? read.left.message : read.right).toBe("inside")
      const listed = yield* Effect.either(run("list_files", { path: "...cache" }))
      expect(Either.isLeft(listed) ? listed.left.message : listed.right).toBe("")
    }))
})

describe("run_command", () => {
  it.live("a command that exits at once but leaves a background job is not reported as a timeout", () =>
    Effect.gen(function*() {
      const { run } = setup({ commandTimeoutMs: 1500 })
      const started = Date.now()
      // The shell exits 0 immediately; the background `sleep` inherits stdout.
      const result = yield* Effect.either(run("run_command", { command: "echo started; sleep 5 &" }))
      const elapsed = Date.now() - started
      expect(Either.isLeft(result) ? result.left.message : result.right).toBe("started\n")
      // Not waiting out the timeout (1.5 s) for the job holding the output pipe.
      expect(elapsed).toBeLessThan(1000)
    }))
})

describe("special files", () => {
  it.live("read_file and write_file refuse a named pipe at once, and the file tools go on working", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup({ fileTimeoutMs: 200 })
      execFileSync("mkfifo", [path.join(cwd, "pipe")])
      fs.writeFileSync(path.join(cwd, "a.txt"), "a")
      // Never waiting on the pipe: a blocked open could not be stopped, and
      // would hold one of the few threads every file operation shares.
      for (let i = 0; i < 6; i++) {
        const error = yield* Effect.flip(run("read_file", { path: "pipe" }))
        expect(error.message).toBe("read_file failed: pipe is not a regular file (it is a named pipe)")
      }
      const written = yield* Effect.flip(run("write_file", { path: "pipe", content: "x" }))
      expect(written._tag).toBe("ToolFailed")
      expect(yield* run("read_file", { path: "a.txt" })).toBe("a")
      expect(fs.statSync(path.join(cwd, "pipe")).isFIFO()).toBe(true)
    }))

  it.effect("read_file and write_file refuse a directory, naming it", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup()
      fs.mkdirSync(path.join(cwd, "dir"))
      expect((yield* Effect.flip(run("read_file", { path: "dir" }))).message).toBe(
        "read_file failed: dir is not a regular file (it is a directory)",
      )
      expect((yield* Effect.flip(run("write_file", { path: "dir", content: "x" }))).message).toMatch(/^write_file failed: /)
      expect(fs.statSync(path.join(cwd, "dir")).isDirectory()).toBe(true)
    }))
})

describe("write_file and hard links", () => {
  it.effect("a hard link to a file outside the directory is replaced, the outside file left as it was, the mode kept", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup()
      const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "turnlog-outside-")))
      created.push(outside)
      const target = path.join(outside, "secret.txt")
      fs.writeFileSync(target, "outside content\n")
      fs.chmodSync(target, 0o640)
      fs.linkSync(target, path.join(cwd, "linked.txt"))
      expect(fs.statSync(target).nlink).toBe(2)

      // read_file reads a hard-linked file like any other: a hard link is the file.
      expect(yield* run("read_file", { path: "linked.txt" })).toBe("outside content\n")
      expect(yield* run("write_file", { path: "linked.txt", content: "new content\n" })).toBe(
        "wrote 12 bytes to linked.txt",
      )

      expect(fs.readFileSync(target, "utf8")).toBe("outside content\n")
      expect(fs.statSync(target).nlink).toBe(1)
      const written = fs.statSync(path.join(cwd, "linked.txt"))
      expect(fs.readFileSync(path.join(cwd, "linked.txt"), "utf8")).toBe("new content\n")
      expect(written.nlink).toBe(1)
      expect(written.mode & 0o7777).toBe(0o640)
      // No temporary is left beside it.
      expect(fs.readdirSync(cwd)).toEqual(["linked.txt"])
    }))

  it.effect("a write refused (the target is a directory) leaves no temporary behind and the directory whole", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup()
      fs.mkdirSync(path.join(cwd, "dir"))
      fs.writeFileSync(path.join(cwd, "dir", "kept.txt"), "kept")
      const error = yield* Effect.flip(run("write_file", { path: "dir", content: "x" }))
      expect(error.message).toBe("write_file failed: dir is not a regular file (it is a directory)")
      expect(fs.readdirSync(cwd)).toEqual(["dir"])
      expect(fs.readdirSync(path.join(cwd, "dir"))).toEqual(["kept.txt"])
    }))
})

describe("the session's directory deleted", () => {
  it.live("run_command and the file tools say the working directory is gone", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup()
      fs.rmSync(cwd, { recursive: true })
      const gone = `the working directory ${cwd} no longer exists`
      expect((yield* Effect.flip(run("run_command", { command: "echo hi" }))).message).toBe(`run_command failed: ${gone}`)
      expect((yield* Effect.flip(run("read_file", { path: "a.txt" }))).message).toBe(`read_file failed: ${gone}`)
      expect((yield* Effect.flip(run("list_files", {}))).message).toBe(`list_files failed: ${gone}`)
      expect((yield* Effect.flip(run("write_file", { path: "a.txt", content: "x" }))).message).toBe(`write_file failed: ${gone}`)
      expect(fs.existsSync(cwd)).toBe(false)
    }))
})

describe("a directory swapped for a link to outside between the check and the use", () => {
  const swap = (cwd: string) => {
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "turnlog-swap-outside-")))
    created.push(outside)
    fs.writeFileSync(path.join(outside, "file.txt"), "OUTSIDE")
    fs.renameSync(path.join(cwd, "sub"), path.join(cwd, "sub.real"))
    fs.symlinkSync(outside, path.join(cwd, "sub"))
    return outside
  }

  it.effect("read_file and list_files, checked when prepared, refuse it when they run", () =>
    Effect.gen(function*() {
      const { cwd, call } = setup()
      fs.mkdirSync(path.join(cwd, "sub"))
      fs.writeFileSync(path.join(cwd, "sub", "file.txt"), "inside")
      const read = yield* call("read_file", { path: "sub/file.txt" })
      const list = yield* call("list_files", { path: "sub" })
      swap(cwd)
      expect((yield* Effect.flip(read.run)).message).toBe(
        `path "sub/file.txt" is outside the session directory ${cwd} (sub was replaced by a symbolic link while the tool ran)`,
      )
      expect((yield* Effect.flip(list.run)).message).toBe(
        `path "sub" is outside the session directory ${cwd} (sub was replaced by a symbolic link while the tool ran)`,
      )
    }))

  it.effect("replaceFile (the writer other tools share), given a confined path, never writes through the link", () =>
    Effect.gen(function*() {
      const { cwd } = setup()
      fs.mkdirSync(path.join(cwd, "sub"))
      fs.writeFileSync(path.join(cwd, "sub", "file.txt"), "inside")
      const target = yield* confine("edit_file", cwd, "sub/file.txt")
      yield* Effect.promise(() => replaceFile(target.absolute, target.relative, "edited"))
      expect(fs.readFileSync(path.join(cwd, "sub", "file.txt"), "utf8")).toBe("edited")
      const outside = swap(cwd)
      const error = yield* Effect.flip(Effect.tryPromise(() => replaceFile(target.absolute, target.relative, "escaped")))
      expect(String(error.cause)).toContain("sub was replaced by a symbolic link while the tool ran")
      // Given a path that climbs out (never what confine gives), the writer refuses it.
      const climbing = path.join("..", path.basename(outside), "file.txt")
      const refused = yield* Effect.flip(Effect.tryPromise(() => writeInside(cwd, climbing, "x")))
      expect(String(refused.cause)).toBe(`PathOutsideCwd: path "${climbing}" is outside the session directory ${cwd}`)
      expect(fs.readdirSync(outside)).toEqual(["file.txt"])
      expect(fs.readFileSync(path.join(outside, "file.txt"), "utf8")).toBe("OUTSIDE")
    }))
})

describe("a failed file call names the path it was given", () => {
  it.effect("a missing file, a missing directory, a file that is no directory", () =>
    Effect.gen(function*() {
      const { cwd, run } = setup()
      fs.mkdirSync(path.join(cwd, "sub"))
      fs.writeFileSync(path.join(cwd, "sub", "a.txt"), "a")
      const message = (name: string, args: unknown) => Effect.map(Effect.flip(run(name, args)), (e) => e.message)
      expect(yield* message("read_file", { path: "sub/nope.txt" })).toBe(
        "read_file failed: ENOENT: no such file or directory, open 'sub/nope.txt'",
      )
      expect(yield* message("read_file", { path: "nope.txt" })).toBe("read_file failed: ENOENT: no such file or directory, open 'nope.txt'")
      expect(yield* message("read_file", { path: "gone/deeper/nope.txt" })).toBe(
        "read_file failed: ENOENT: no such file or directory, open 'gone'",
      )
      expect(yield* message("list_files", { path: "sub/a.txt" })).toBe("list_files failed: sub/a.txt is not a directory")
      expect(yield* message("write_file", { path: "sub/a.txt/b.txt", content: "x" })).toBe(
        "write_file failed: sub/a.txt is not a directory",
      )
    }))
})
