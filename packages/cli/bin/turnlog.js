#!/usr/bin/env node
// The `turnlog` launcher. It runs the built command (`dist/`, plain JavaScript
// made by `npm run build`, and by `npm ci` and `npm test`) while no source it
// was built from is newer than it; otherwise it registers tsx (with this
// package's tsconfig, whatever the current directory) and runs the TypeScript
// sources, so an edit is never hidden by a stale build — saying so on stderr
// when a build exists. TURNLOG_FROM_SOURCE=1 always runs the sources.
// `turnlog --version` alone is answered here, before any of the command loads.
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import * as nodeModule from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
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

/** How a CommonJS module's text is wrapped; the build writes it around the command's. */
const WRAPPER = "(function (exports, require, module, __filename, __dirname) {"

/**
 * Runs the command's build, `dist/main.cjs` (one CommonJS script), compiled
 * with V8's code cache: the bytecode of every function a first run of the same
 * command compiled is kept on disk, and a later run takes it instead of parsing
 * and compiling the script again (otherwise most of a command's start-up). The
 * cache is one file per command and Node version, in a folder of the system's
 * temp directory that only this user can write (`TURNLOG_COMPILE_CACHE` names
 * another folder; `TURNLOG_COMPILE_CACHE=0` or `NODE_DISABLE_COMPILE_CACHE=1`
 * turns the cache off).
 * A cache file starts with the build's id (`dist/build-id`): one made from
 * another build, or that V8 refuses, is written again when the command exits.
 * Anything wrong with the cache only costs its time: the command runs.
 */
const runBuild = () => {
  const file = fileURLToPath(new URL("main.cjs", dist))
  // ASCII, as the build checks: read as Latin-1, it makes V8's one-byte string at once.
  const source = readFileSync(file, "latin1")
  const cache = codeCache()
  // The build writes the module's wrapper: the text is compiled as read, with no copy made (a
  // build made before it did so is wrapped here).
  const script = new Script(source.startsWith(WRAPPER) ? source : `${WRAPPER}${source}\n})`, {
    filename: file,
    cachedData: cache?.data,
  })
  if (cache !== undefined && (cache.data === undefined || script.cachedDataRejected === true)) {
    process.once("exit", () => cache.save(script))
  }
  const module = { exports: {} }
  script.runInThisContext()(module.exports, nodeModule.createRequire(file), module, file, dirname(file))
}

/** Where this command's code cache is, and what it holds for this build; undefined when there is to be none. */
const codeCache = () => {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === "1" || process.env.TURNLOG_COMPILE_CACHE === "0") return undefined
  try {
    const id = readFileSync(new URL("build-id", dist), "latin1").trim()
    const folder = process.env.TURNLOG_COMPILE_CACHE || join(tmpdir(), `turnlog-compile-cache-${process.getuid?.() ?? "user"}`)
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    // Never code another user could have written: the folder is this user's own, and no one else's to write.
    const stat = lstatSync(folder)
    if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid()) || (stat.mode & 0o022) !== 0) return undefined
    const command = /^[a-z][a-z-]{0,31}$/.test(process.argv[2] ?? "") ? process.argv[2] : "other"
    const path = join(folder, `${command}-v8-${process.versions.v8}-${process.arch}.bin`)
    const header = Buffer.from(`${id}\n`, "latin1")
    let data
    try {
      const held = readFileSync(path)
      if (held.subarray(0, header.length).equals(header)) data = held.subarray(header.length)
    } catch {
      // none yet
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
    return { data, save }
  } catch {
    return undefined
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
