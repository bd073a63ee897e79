// Builds the `turnlog` command into plain JavaScript: the workspace's
// TypeScript sources bundled into `packages/cli/dist/` (one chunk per lazily
// loaded command), every third-party package left to Node's own resolution.
// Started from the bundle, the command skips compiling TypeScript at run time,
// which is most of its start-up.
//
// `dist/inputs.json` lists the source files the bundle was built from: the
// launcher (`packages/cli/bin/turnlog.js`) uses the bundle only while none of
// them is newer than it, and runs the sources otherwise, so an edit is never
// hidden by a stale build. Run by `npm ci` (prepare), `npm test` and `npm run build`.
import { build } from "esbuild"
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const cli = join(root, "packages", "cli")
const out = join(cli, "dist")

// Every dependency (or peer) a workspace package declares, other than the workspace's
// own packages, stays external: installed once, loaded by Node as published.
const external = new Set()
for (const name of readdirSync(join(root, "packages"))) {
  const manifest = join(root, "packages", name, "package.json")
  if (!statSync(manifest, { throwIfNoEntry: false })) continue
  const { dependencies = {}, peerDependencies = {} } = JSON.parse(readFileSync(manifest, "utf8"))
  for (const dependency of [...Object.keys(dependencies), ...Object.keys(peerDependencies)]) {
    if (!dependency.startsWith("@turnlog/")) external.add(dependency)
  }
}

rmSync(out, { recursive: true, force: true })
const started = Date.now()
const result = await build({
  entryPoints: { main: join(cli, "src", "main.ts") },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  external: [...external].flatMap((name) => [name, `${name}/*`]),
  tsconfig: join(cli, "tsconfig.json"),
  // The workspace's packages resolve to their sources, not their dist/ builds.
  conditions: ["@turnlog/source"],
  metafile: true,
  logLevel: "warning",
})

const inputs = Object.keys(result.metafile.inputs)
  .map((input) => relative(cli, join(root, input)))
  .sort()
writeFileSync(join(out, "inputs.json"), JSON.stringify(inputs, null, 2) + "\n")
console.error(`turnlog: built packages/cli/dist from ${inputs.length} source files in ${Date.now() - started} ms`)
