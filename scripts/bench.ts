// `npm run bench`: runs every packages/*/bench/*.bench.ts in its own process,
// one after another (so they do not compete for the two cores), and passes
// their output through. Each bench prints its own figures beside an in-run
// reference and the ratio of the two.
//
// What each bench printed is also written to docs/benchmarks.md, a section per
// bench with the machine, the date and the commit it was measured on. A run of
// some benches (`npm run bench -- store`) replaces their sections and keeps the
// others as they were, with their own dates. `--no-write` leaves the file alone.
import { spawn } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import * as Report from "./bench/Report.js"

const args = process.argv.slice(2)
const write = !args.includes("--no-write")
const only = args.filter((a) => a !== "--no-write")
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

/** Runs one bench, its stdout shown as it comes and kept; its stderr shown only. */
const runOne = (file: string): Promise<{ readonly output: string; readonly ok: boolean }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", "--conditions=@turnlog/source", "--import", "tsx", file], {
      cwd: root,
      stdio: ["inherit", "pipe", "inherit"],
    })
    const parts: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => {
      parts.push(chunk)
      process.stdout.write(chunk)
    })
    child.on("close", (code) => resolve({ output: Buffer.concat(parts).toString("utf8"), ok: code === 0 }))
  })

const machine = Report.machine(root)
const sections: Array<Report.Section> = []
let failed = 0
for (const file of benches) {
  const name = file.slice(root.length)
  console.log(`\n## ${name}`)
  const { ok, output } = await runOne(file)
  if (!ok) failed++
  sections.push({ name, machine, output, ok })
}
if (benches.length === 0) console.log("no benchmarks found")
else if (write) {
  const written = Report.update(join(root, "docs", "benchmarks.md"), sections)
  console.log(`\n${written.replaced} section(s) of docs/benchmarks.md written, ${written.kept} kept from earlier runs`)
}
process.exit(failed === 0 ? 0 : 1)
