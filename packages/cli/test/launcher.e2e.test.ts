// The launcher (`bin/turnlog.js`) runs the build while it is current and the
// sources otherwise. Tested on a copy of the launcher beside a small stand-in
// package, so nothing of the real build or sources is touched.
import { execFile } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const LAUNCHER = fileURLToPath(new URL("../bin/turnlog.js", import.meta.url))
const NODE_MODULES = fileURLToPath(new URL("../../../node_modules", import.meta.url))

const BUILD_ID = "0123456789abcdef0123456789abcdef"

const root = mkdtempSync(join(tmpdir(), "turnlog-launcher-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A package laid out like this one: a launcher, sources that say "source", a build that says "build". */
const standIn = (name: string) => {
  const dir = join(root, name)
  for (const sub of ["bin", "src", "dist"]) mkdirSync(join(dir, sub), { recursive: true })
  copyFileSync(LAUNCHER, join(dir, "bin", "turnlog.js"))
  symlinkSync(NODE_MODULES, join(dir, "node_modules"))
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }))
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }))
  writeFileSync(join(dir, "src", "said.ts"), 'export const said: string = "source"\n')
  writeFileSync(join(dir, "src", "main.ts"), 'import { said } from "./said.js"\nconsole.log(said)\n')
  // A CommonJS module's body in the wrapper the build writes, run with the `require` and `__dirname` of its file.
  writeFileSync(
    join(dir, "dist", "main.cjs"),
    '(function (exports, require, module, __filename, __dirname) {console.log(require("node:path").basename(__dirname) === "dist" ? "build" : "elsewhere")\n})\n',
  )
  writeFileSync(join(dir, "dist", "build-id"), `${BUILD_ID}\n`)
  writeFileSync(join(dir, "dist", "inputs.json"), JSON.stringify(["src/main.ts", "src/said.ts"]))
  // Sources first, then the build from them.
  const past = new Date(Date.now() - 60_000)
  for (const file of ["src/main.ts", "src/said.ts"]) utimesSync(join(dir, file), past, past)
  return dir
}

const launch = (dir: string, env: Record<string, string> = {}, args: ReadonlyArray<string> = []) =>
  new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
    execFile(
      process.execPath,
      [join(dir, "bin", "turnlog.js"), ...args],
      // No code cache unless a test names its folder: none is left in the machine's temp directory.
      { env: { ...process.env, TURNLOG_COMPILE_CACHE: "0", ...env } },
      (error, stdout, stderr) => error ? reject(error) : resolve({ stdout, stderr }),
    )
  )

describe.concurrent("the launcher", () => {
  it("runs the build, silently, while no source it was built from is newer", async () => {
    expect(await launch(standIn("current"))).toEqual({ stdout: "build\n", stderr: "" })
  })

  it("runs a build written without its wrapper (as builds were before) by wrapping it", async () => {
    const dir = standIn("unwrapped")
    const script = join(dir, "dist", "main.cjs")
    const wrapped = readFileSync(script, "latin1")
    writeFileSync(script, wrapped.slice(wrapped.indexOf("{") + 1, wrapped.lastIndexOf("}")))
    utimesSync(script, new Date(), new Date())
    expect(readFileSync(script, "latin1").startsWith("console.log(")).toBe(true)
    expect(await launch(dir)).toEqual({ stdout: "build\n", stderr: "" })
  })

  it("runs the sources, and says why on stderr, once a source changed after the build", async () => {
    const dir = standIn("edited")
    const later = new Date(Date.now() + 60_000)
    utimesSync(join(dir, "src", "said.ts"), later, later)
    expect(await launch(dir)).toEqual({
      stdout: "source\n",
      stderr: "turnlog: running from source: src/said.ts changed since the last build (npm run build)\n",
    })
  })

  it("runs the sources when a source the build came from is gone, and silently when there is no build or TURNLOG_FROM_SOURCE=1", async () => {
    const gone = standIn("gone")
    writeFileSync(join(gone, "dist", "inputs.json"), JSON.stringify(["src/main.ts", "src/said.ts", "src/removed.ts"]))
    expect(await launch(gone)).toEqual({
      stdout: "source\n",
      stderr: "turnlog: running from source: src/removed.ts is gone since the last build (npm run build)\n",
    })
    const unbuilt = standIn("unbuilt")
    rmSync(join(unbuilt, "dist"), { recursive: true })
    expect(await launch(unbuilt)).toEqual({ stdout: "source\n", stderr: "" })
    expect(await launch(standIn("forced"), { TURNLOG_FROM_SOURCE: "1" })).toEqual({ stdout: "source\n", stderr: "" })
  })
})

describe.concurrent("the launcher's code cache", () => {
  /** The cache file of `command` under this Node. */
  const cacheFile = (folder: string, command: string) => join(folder, `${command}-v8-${process.versions.v8}-${process.arch}.bin`)
  const header = Buffer.from(`${BUILD_ID}\n`)
  const past = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000)

  it("keeps what a command's first run compiled, starting with the build's id, and takes it on the next run", async () => {
    const dir = standIn("cached")
    const folder = join(dir, "cache")
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["sessions"])).toEqual({ stdout: "build\n", stderr: "" })
    const file = cacheFile(folder, "sessions")
    const kept = readFileSync(file)
    expect(kept.subarray(0, header.length)).toEqual(header)
    expect(kept.length).toBeGreaterThan(header.length)
    expect(statSync(folder).mode & 0o777).toBe(0o700)
    // Taken, not written again: V8 accepted it.
    utimesSync(file, past, past)
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["sessions"])).toEqual({ stdout: "build\n", stderr: "" })
    expect(Math.round(statSync(file).mtimeMs)).toBe(past.getTime())
    expect(readFileSync(file)).toEqual(kept)
    // Each command has its own, named by the first word after the global options; with none, the
    // interactive session's (`chat`); arguments that are not a command share one.
    utimesSync(file, past, past)
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["--home", "x", "--no-color", "--store=jsonl", "sessions"])).toEqual({
      stdout: "build\n",
      stderr: "",
    })
    expect(Math.round(statSync(file).mtimeMs)).toBe(past.getTime())
    expect(readdirSync(folder)).toEqual([basename(file)])
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["--home", "x"])).toEqual({ stdout: "build\n", stderr: "" })
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["--config", "sessions", "What is here?"])).toEqual({ stdout: "build\n", stderr: "" })
    expect(readdirSync(folder).sort()).toEqual([basename(cacheFile(folder, "chat")), basename(cacheFile(folder, "other")), basename(file)])
  })

  it("runs a provider SDK's script when the command first asks for it, once, with a cache file of its own", async () => {
    const dir = standIn("vendored")
    const folder = join(dir, "cache")
    mkdirSync(join(dir, "dist", "vendor"))
    // The SDK counts its runs and names its file; the command asks for it twice on `run`, never on `sessions`.
    writeFileSync(
      join(dir, "dist", "vendor", "sdk.cjs"),
      "(function (exports, require, module, __filename, __dirname) {globalThis.sdkRuns = (globalThis.sdkRuns ?? 0) + 1; " +
        'exports.file = require("node:path").relative(require("node:path").dirname(__dirname), __filename); exports.runs = globalThis.sdkRuns\n})\n',
    )
    // On `run` it also makes a request through `fetch`, to a server of its own.
    writeFileSync(
      join(dir, "dist", "main.cjs"),
      '(function (exports, require, module, __filename, __dirname) {const sdk = () => globalThis[Symbol.for("turnlog/vendor")]("sdk"); ' +
        'if (process.argv[2] !== "run") console.log("build"); else { const server = require("node:http").createServer((q, r) => r.end("ok")); ' +
        'server.listen(0, "127.0.0.1", () => fetch(`http://127.0.0.1:${server.address().port}/`).then((r) => r.text()).then((text) => { ' +
        "server.close(); server.closeAllConnections(); console.log(`build ${sdk().file} ${sdk().runs} ${sdk() === sdk()} ${text}`) })) }\n})\n",
    )
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["sessions"])).toEqual({ stdout: "build\n", stderr: "" })
    expect(readdirSync(folder)).toEqual([basename(cacheFile(folder, "sessions"))])
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["run"])).toEqual({ stdout: "build vendor/sdk.cjs 1 true ok\n", stderr: "" })
    const sdkCache = cacheFile(folder, "vendor.sdk")
    expect(readdirSync(folder).sort()).toEqual([basename(cacheFile(folder, "run")), basename(cacheFile(folder, "sessions")), basename(sdkCache)])
    expect(readFileSync(sdkCache).subarray(0, header.length)).toEqual(header)
    // Both taken on the next run, not written again: on Node 20 the launcher changes a V8 flag as `fetch`
    // makes its first request (see `baselineHttpParser`), and puts it back before the caches are made, as
    // V8 takes a cache only under the flags it was made with.
    const runCache = cacheFile(folder, "run")
    for (const file of [sdkCache, runCache]) utimesSync(file, past, past)
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["run"])).toEqual({ stdout: "build vendor/sdk.cjs 1 true ok\n", stderr: "" })
    expect([sdkCache, runCache].map((file) => Math.round(statSync(file).mtimeMs))).toEqual([past.getTime(), past.getTime()])
  })

  it("writes again a cache of another build, or one V8 refuses, and runs the command all the same", async () => {
    const dir = standIn("recached")
    const folder = join(dir, "cache")
    mkdirSync(folder, { mode: 0o700 })
    const file = cacheFile(folder, "run")
    writeFileSync(file, Buffer.concat([Buffer.from("fedcba9876543210fedcba9876543210\n"), Buffer.alloc(4096, 7)]))
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["run"])).toEqual({ stdout: "build\n", stderr: "" })
    expect(readFileSync(file).subarray(0, header.length)).toEqual(header)
    const damaged = Buffer.concat([header, Buffer.alloc(4096, 7)])
    writeFileSync(file, damaged)
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["run"])).toEqual({ stdout: "build\n", stderr: "" })
    const remade = readFileSync(file)
    expect(remade.subarray(0, header.length)).toEqual(header)
    expect(remade.equals(damaged)).toBe(false)
    // What was written again is taken on the next run.
    utimesSync(file, past, past)
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: folder }, ["run"])).toEqual({ stdout: "build\n", stderr: "" })
    expect(Math.round(statSync(file).mtimeMs)).toBe(past.getTime())
  })

  it("keeps none in a folder others can write, or when turned off, and the default folder is the user's own", async () => {
    const dir = standIn("uncached")
    const open = join(dir, "open")
    mkdirSync(open)
    chmodSync(open, 0o777)
    expect(await launch(dir, { TURNLOG_COMPILE_CACHE: open }, ["sessions"])).toEqual({ stdout: "build\n", stderr: "" })
    expect(readdirSync(open)).toEqual([])
    const temp = join(dir, "temp")
    mkdirSync(temp)
    const env = { TMPDIR: temp, TURNLOG_COMPILE_CACHE: "" }
    expect(await launch(dir, { ...env, TURNLOG_COMPILE_CACHE: "0" }, ["sessions"])).toEqual({ stdout: "build\n", stderr: "" })
    expect(await launch(dir, { ...env, NODE_DISABLE_COMPILE_CACHE: "1" }, ["sessions"])).toEqual({ stdout: "build\n", stderr: "" })
    // (Node 22 and later keep their own compile cache for the packages loaded as published there too.)
    expect(readdirSync(temp).filter((name) => name !== "node-compile-cache")).toEqual([])
    expect(await launch(dir, env, ["sessions"])).toEqual({ stdout: "build\n", stderr: "" })
    const own = join(temp, `turnlog-compile-cache-${process.getuid!()}`)
    expect(statSync(own).mode & 0o777).toBe(0o700)
    expect(readdirSync(own)).toEqual([basename(cacheFile(own, "sessions"))])
  })
})
