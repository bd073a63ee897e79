#!/usr/bin/env node
// The `turnlog` launcher. It runs the built command (`dist/`, plain JavaScript
// made by `npm run build`, and by `npm ci` and `npm test`) while no source it
// was built from is newer than it; otherwise it registers tsx (with this
// package's tsconfig, whatever the current directory) and runs the TypeScript
// sources, so an edit is never hidden by a stale build — saying so on stderr
// when a build exists. TURNLOG_FROM_SOURCE=1 always runs the sources.
// `turnlog --version` alone is answered here, before any of the command loads.
import { readFileSync, statSync } from "node:fs"
import * as nodeModule from "node:module"
import { fileURLToPath } from "node:url"

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
    made = statSync(new URL("main.js", dist)).mtimeMs
    inputs = JSON.parse(readFileSync(new URL("inputs.json", dist), "utf8"))
  } catch {
    return "none"
  }
  for (const input of inputs) {
    const stat = statSync(new URL(input, cli), { throwIfNoEntry: false })
    if (stat === undefined) return `${input} is gone`
    if (stat.mtimeMs > made) return `${input} changed`
  }
  return ""
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
  // Node 22.1 and later keep the build's compiled code on disk (under the
  // system's temp directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a
  // command after the first skips most of compiling it. Node 20 has no such cache.
  nodeModule.enableCompileCache?.()
  // A bare `turnlog acp` answers the editor's `initialize` before the command loads (src/AcpEarly.ts).
  if (process.argv.length === 3 && process.argv[2] === "acp") {
    const { answerInitialize } = await import(new URL("acpEarly.js", dist).href)
    await answerInitialize()
  }
  await import(new URL("main.js", dist).href)
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
