// The launcher (`bin/turnlog.js`) runs the build while it is current and the
// sources otherwise. Tested on a copy of the launcher beside a small stand-in
// package, so nothing of the real build or sources is touched.
import { execFile } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const LAUNCHER = fileURLToPath(new URL("../bin/turnlog.js", import.meta.url))
const NODE_MODULES = fileURLToPath(new URL("../../../node_modules", import.meta.url))

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
  writeFileSync(join(dir, "dist", "main.js"), 'console.log("build")\n')
  writeFileSync(join(dir, "dist", "inputs.json"), JSON.stringify(["src/main.ts", "src/said.ts"]))
  // Sources first, then the build from them.
  const past = new Date(Date.now() - 60_000)
  for (const file of ["src/main.ts", "src/said.ts"]) utimesSync(join(dir, file), past, past)
  return dir
}

const launch = (dir: string, env: Record<string, string> = {}) =>
  new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
    execFile(
      process.execPath,
      [join(dir, "bin", "turnlog.js")],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => error ? reject(error) : resolve({ stdout, stderr }),
    )
  )

describe.concurrent("the launcher", () => {
  it("runs the build, silently, while no source it was built from is newer", async () => {
    expect(await launch(standIn("current"))).toEqual({ stdout: "build\n", stderr: "" })
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
