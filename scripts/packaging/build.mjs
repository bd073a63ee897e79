// Builds every package for consumers: tsc compiles each library package's src/
// into dist/ (ESM JavaScript, .d.ts, declaration maps, source maps) through
// tsconfig.build.json (written by scripts/packaging/manifests.mjs), then
// scripts/build-cli.mjs bundles the command. Run by `npm ci` (prepare),
// `npm run build` and `npm test`. The monorepo itself never runs dist: its
// tools resolve the "@turnlog/source" export condition to the sources.
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
const started = Date.now()
const result = spawnSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: root, stdio: "inherit" })
if (result.status !== 0) {
  console.error("turnlog: building the packages' dist/ failed")
  process.exit(result.status ?? 1)
}
console.error(`turnlog: built packages/*/dist in ${Date.now() - started} ms`)
await import("../build-cli.mjs")
