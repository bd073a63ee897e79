// `npm run pack-all -- <dir>`: every published @turnlog/* package (those not
// private) compiled and packed into one folder, for an application that
// installs turnlog from tarballs rather than a registry:
//
//   npm install effect@~3.22.4 <dir>/*.tgz
//
// Installed together, the tarballs satisfy each other's sibling ranges
// (`^<version>`), so nothing is asked of a registry for them. The packages'
// dist/ is compiled first (tsc -b tsconfig.build.json, a no-op when current).
// `--json` prints npm pack's JSON report (one entry per tarball, with its
// files) on stdout instead of the tarballs' names.
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const args = process.argv.slice(2)
const json = args.includes("--json")
const dirs = args.filter((arg) => arg !== "--json")
if (dirs.length !== 1 || dirs[0].startsWith("-")) {
  console.error("usage: npm run pack-all -- <dir> [--json]  (packs every published @turnlog/* package into <dir>)")
  process.exit(2)
}
const destination = resolve(process.env.INIT_CWD ?? process.cwd(), dirs[0])

const published = readdirSync(join(root, "packages"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => JSON.parse(readFileSync(join(root, "packages", entry.name, "package.json"), "utf8")))
  .filter((manifest) => manifest.private !== true)
  .map((manifest) => manifest.name)
  .sort()

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
const built = spawnSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] })
if (built.status !== 0) {
  console.error("pack-all: compiling the packages' dist/ failed")
  process.exit(built.status ?? 1)
}

mkdirSync(destination, { recursive: true })
// npm's per-run settings of an `npm run` (npm_config_*) are not meant for the packing.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("npm_config_") || key === "npm_config_cache"))
const packed = spawnSync(
  "npm",
  ["pack", "--json", "--loglevel=error", "--pack-destination", destination, ...published.map((name) => `--workspace=${name}`)],
  { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 << 20 },
)
if (packed.status !== 0) {
  console.error(`pack-all: npm pack failed (exit ${packed.status})`)
  process.exit(packed.status ?? 1)
}
if (json) process.stdout.write(packed.stdout)
else {
  const report = JSON.parse(packed.stdout)
  for (const p of report) console.log(join(destination, p.filename))
  console.error(`pack-all: ${report.length} packages in ${destination}; install them with: npm install effect@~3.22.4 ${destination}/*.tgz`)
}
