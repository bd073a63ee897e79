#!/usr/bin/env node
// The `turnlog` launcher. It runs the built command (`dist/`, plain JavaScript
// made by `npm run build`, and by `npm ci` and `npm test`) while no source it
// was built from is newer than it; otherwise it registers tsx (with this
// package's tsconfig, whatever the current directory) and runs the TypeScript
// sources, so an edit is never hidden by a stale build — saying so on stderr
// when a build exists. TURNLOG_FROM_SOURCE=1 always runs the sources.
// `turnlog --version` alone is answered here, before any of the command loads.
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import * as nodeModule from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as diagnosticsChannel from "node:diagnostics_channel"
import * as v8 from "node:v8"
import { Script } from "node:vm"

const cli = new URL("../", import.meta.url)

const SOURCE_CONDITION_HOOK = `export async function resolve(specifier, context, next) {
  const conditions = context.conditions.includes("@turnlog/source") ? context.conditions : [...context.conditions, "@turnlog/source"]
  return next(specifier, { ...context, conditions })
}`
const dist = new URL("dist/", cli)

/** "" when the build can run; otherwise why not ("none" when there is no usable build). */
const staleness = () => {
  if (process.env.TURNLOG_FROM_SOURCE === "1") return "none"
  let made
  let inputs
  try {
    made = statSync(new URL("main.cjs", dist)).mtimeMs
    inputs = JSON.parse(readFileSync(new URL("inputs.json", dist), "utf8"))
  } catch {
    return "none"
  }
  // Plain paths: a URL per input costs more than its stat call.
  const base = fileURLToPath(cli)
  for (const input of inputs) {
    const stat = statSync(base + input, { throwIfNoEntry: false })
    if (stat === undefined) return `${input} is gone`
    if (stat.mtimeMs > made) return `${input} changed`
  }
  return ""
}

/** How a CommonJS module's text is wrapped; the build writes it around each of its scripts. */
const WRAPPER = "(function (exports, require, module, __filename, __dirname) {"

/**
 * Runs the command's build, `dist/main.cjs` (one CommonJS script), compiled
 * with V8's code cache: the bytecode of every function a first run of the same
 * command compiled is kept on disk, and a later run takes it instead of parsing
 * and compiling the script again (otherwise most of a command's start-up). The
 * provider SDKs are scripts of their own, `dist/vendor/<name>.cjs`, run the
 * same way when the command first asks for one (on a provider's first
 * request; see `scripts/packaging/vendor-scripts.mjs`).
 *
 * The cache is one file per command (and per SDK) and Node version, in a
 * folder of the system's temp directory that only this user can write
 * (`TURNLOG_COMPILE_CACHE` names another folder; `TURNLOG_COMPILE_CACHE=0` or
 * `NODE_DISABLE_COMPILE_CACHE=1` turns the cache off).
 * A cache file starts with the build's id (`dist/build-id`): one made from
 * another build, or that V8 refuses, is written again when the command exits.
 * Anything wrong with the cache only costs its time: the command runs.
 */
const runBuild = () => {
  const cache = codeCache()
  const vendored = new Map()
  globalThis[Symbol.for("turnlog/vendor")] = (name) => {
    if (!vendored.has(name)) vendored.set(name, runScript(new URL(`vendor/${name}.cjs`, dist), cache?.(`vendor.${name}`)))
    return vendored.get(name)
  }
  baselineHttpParser()
  runScript(new URL("main.cjs", dist), cache?.(commandOf(process.argv.slice(2))))
}

/** The global options that take a value, and the one that takes none (`src/GlobalArgs.ts`, `src/Color.ts`). */
const VALUED = ["--home", "--config", "--store"]
const FLAGS = ["--no-color"]

/**
 * The command `args` run, as their code cache's name: the first word after
 * the global options (`turnlog --home d sessions` runs `sessions`, as
 * `turnlog sessions --home d` does); none (`turnlog`, `turnlog --home d`) is the
 * interactive session, `chat`; anything else shares one cache, `other`.
 */
const commandOf = (args) => {
  let i = 0
  while (i < args.length) {
    const name = args[i].split("=")[0]
    if (FLAGS.includes(args[i])) i += 1
    else if (VALUED.includes(name)) i += name === args[i] ? 2 : 1
    else break
  }
  if (i >= args.length) return "chat"
  return /^[a-z][a-z-]{0,31}$/.test(args[i]) ? args[i] : "other"
}

/**
 * On Node 20 (V8 11) a process that has made a request through `fetch` ends
 * only once V8 has finished optimizing undici's HTTP parser, a WebAssembly
 * module, in the background: after the command's work is done, the exit
 * waits a hundred milliseconds and more for code nothing will run. So as
 * `fetch` makes its first request (a provider's, an MCP server's), the parser
 * is left to V8's baseline compiler. The flag is set only then, when Node
 * has compiled its own modules of `fetch` with its cache, which V8 takes only
 * under the flags it was made with; for the same reason, it is put back while
 * a script of the build is compiled (`flagsAsStarted`), and as the process
 * exits, before any code cache is written. Later Node versions do not wait,
 * and are left as they are; so is a Node given WebAssembly flags.
 */
const BASELINE = "--liftoff-only"
// With the two flags it turned off: V8 set them by implication.
const AS_STARTED = "--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering"
let baseline = false
const baselineHttpParser = () => {
  if (Number(process.versions.v8.split(".")[0]) > 11) return
  if (/wasm|liftoff/.test(`${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`)) return
  // Subscribed by name: the module keeps the channel (and so the subscription) while it has subscribers.
  const first = () => {
    diagnosticsChannel.unsubscribe("undici:request:create", first)
    baseline = true
    v8.setFlagsFromString(BASELINE)
    process.prependListener("exit", () => {
      baseline = false
      v8.setFlagsFromString(AS_STARTED)
    })
  }
  diagnosticsChannel.subscribe("undici:request:create", first)
}

/** `compile()`, under V8's flags as the process started. */
const flagsAsStarted = (compile) => {
  if (!baseline) return compile()
  v8.setFlagsFromString(AS_STARTED)
  try {
    return compile()
  } finally {
    v8.setFlagsFromString(BASELINE)
  }
}

/**
 * The memory the scripts and their caches are read into, one after another.
 * Each is wanted only until V8 has made the script's text, or compiled the
 * script with its cache; fresh memory costs a start more than reading (the
 * pages of a new buffer are mapped as first written), so one buffer serves
 * them all, grown to the largest.
 */
let scratch = Buffer.allocUnsafeSlow(0)

/** The bytes of `path`, in `scratch`: valid until the next read. */
const readScratch = (path) => {
  const fd = openSync(path, "r")
  try {
    const size = fstatSync(fd).size
    if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(size)
    let done = 0
    while (done < size) {
      const n = readSync(fd, scratch, done, size - done, done)
      if (n === 0) break
      done += n
    }
    return scratch.subarray(0, done)
  } finally {
    closeSync(fd)
  }
}

/** Runs one script of the build as a CommonJS module, with `cache` (see `codeCache`) when there is one; its exports. */
const runScript = (url, cache) => {
  const file = fileURLToPath(url)
  // ASCII, as the build checks: read as Latin-1, it makes V8's one-byte string at once. The
  // text is made before the cache is read (into the same memory).
  const source = readScratch(file).latin1Slice()
  // The build writes the module's wrapper: the text is compiled as read, with no copy made (a
  // build made before it did so is wrapped here).
  const script = flagsAsStarted(() =>
    new Script(source.startsWith(WRAPPER) ? source : `${WRAPPER}${source}\n})`, {
      filename: file,
      cachedData: cache?.data,
    })
  )
  if (cache !== undefined && (cache.data === undefined || script.cachedDataRejected === true)) {
    process.once("exit", () => cache.save(script))
  }
  const module = { exports: {} }
  script.runInThisContext()(module.exports, nodeModule.createRequire(file), module, file, dirname(file))
  return module.exports
}

/**
 * The code cache's folder, as a function from a script's cache name to what
 * its file holds for this build (`data`, read when first asked for and valid
 * until the next script is read) and how to write it; undefined when there is
 * to be no cache.
 */
const codeCache = () => {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === "1" || process.env.TURNLOG_COMPILE_CACHE === "0") return undefined
  let header
  let folder
  try {
    header = Buffer.from(`${readFileSync(new URL("build-id", dist), "latin1").trim()}\n`, "latin1")
    folder = process.env.TURNLOG_COMPILE_CACHE || join(tmpdir(), `turnlog-compile-cache-${process.getuid?.() ?? "user"}`)
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    // Never code another user could have written: the folder is this user's own, and no one else's to write.
    const stat = lstatSync(folder)
    if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid()) || (stat.mode & 0o022) !== 0) return undefined
  } catch {
    return undefined
  }
  return (name) => {
    const path = join(folder, `${name}-v8-${process.versions.v8}-${process.arch}.bin`)
    // Read when first asked for, after the script's text is made (see `scratch`).
    let data
    let read = false
    const held = () => {
      if (!read) {
        read = true
        try {
          const bytes = readScratch(path)
          if (bytes.subarray(0, header.length).equals(header)) data = bytes.subarray(header.length)
        } catch {
          // none yet
        }
      }
      return data
    }
    const staging = `${path}.${process.pid}`
    const save = (script) => {
      try {
        writeFileSync(staging, Buffer.concat([header, script.createCachedData()]), { mode: 0o600 })
        renameSync(staging, path)
      } catch {
        try {
          unlinkSync(staging)
        } catch {
          // nothing was written
        }
      }
    }
    return {
      get data() {
        return held()
      },
      save,
    }
  }
}

// The package's version, printed as the command's parser prints it (`Version.ts`
// reads the same file); `--version` among other arguments is the parser's.
if (process.argv.length === 3 && process.argv[2] === "--version") {
  let version = "0.0.0"
  try {
    const pkg = JSON.parse(readFileSync(new URL("package.json", cli), "utf8"))
    if (typeof pkg.version === "string") version = pkg.version
  } catch {
    // as Version.ts: a missing or broken manifest reports 0.0.0
  }
  process.stdout.write(`${version}\n\n`)
  process.exit(0)
}

const why = staleness()
if (why === "") {
  // Node 22.1 and later keep the compiled code of the packages loaded as
  // published (SQLite, PostgreSQL, a provider's SDK) on disk, under the system's
  // temp directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  nodeModule.enableCompileCache?.()
  // A bare `turnlog acp` answers the editor's `initialize` before the command loads (src/AcpEarly.ts).
  if (process.argv.length === 3 && process.argv[2] === "acp") {
    const { answerInitialize } = await import(new URL("acpEarly.js", dist).href)
    await answerInitialize()
  }
  runBuild()
} else {
  if (why !== "none") process.stderr.write(`turnlog: running from source: ${why} since the last build (npm run build)\n`)
  // The workspace's packages export their sources under the "@turnlog/source"
  // condition (their default entries are the compiled dist/, possibly stale):
  // add it to every resolution before tsx, as `node --conditions` would.
  nodeModule.register(`data:text/javascript,${encodeURIComponent(SOURCE_CONDITION_HOOK)}`)
  const { register } = await import("tsx/esm/api")
  register({ tsconfig: fileURLToPath(new URL("tsconfig.json", cli)) })
  await import("../src/main.ts")
}
