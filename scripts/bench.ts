// `npm run bench`: runs every packages/*/bench/*.bench.ts in its own process,
// one after another (so they do not compete for the two cores), and passes
// their output through. Each bench prints its own figures beside an in-run
// reference and the ratio of the two.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"

const only = process.argv.slice(2)
const root = new URL("..", import.meta.url).pathname
const packagesDir = join(root, "packages")
const benches = readdirSync(packagesDir)
  .flatMap((pkg) => {
    const dir = join(packagesDir, pkg, "bench")
    return existsSync(dir)
      ? readdirSync(dir).filter((f) => f.endsWith(".bench.ts")).map((f) => join(dir, f))
      : []
  })
  // matched within the repository, so a checkout whose own path holds the word does not match every bench
  .filter((file) => only.length === 0 || only.some((o) => file.slice(root.length).includes(o)))
  .sort()

let failed = 0
for (const file of benches) {
  console.log(`\n## ${file.slice(root.length)}`)
  const result = spawnSync(process.execPath, ["--expose-gc", "--conditions=@turnlog/source", "--import", "tsx", file], { stdio: "inherit", cwd: root })
  if (result.status !== 0) failed++
}
if (benches.length === 0) console.log("no benchmarks found")
process.exit(failed === 0 ? 0 : 1)
