// The build's deferred modules (scripts/packaging/deferred-modules.mjs): in a
// source module the build is given, each namespace import of a package module
// runs on the first read through it, not when the bundle starts (how pi-ai's
// built-in providers are made only when a route names one). Bundled here with
// esbuild and the plugin, and run.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Script } from "node:vm"
import { afterAll, describe, expect, it } from "vitest"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

type Plugin = { readonly name: string }
type BuildResult = { readonly outputFiles: ReadonlyArray<{ readonly text: string }> }
interface Esbuild {
  readonly build: (options: Record<string, unknown>) => Promise<BuildResult>
}

const plugin = new URL("../../../scripts/packaging/deferred-modules.mjs", import.meta.url).href
const { deferredModules } = (await import(plugin)) as { deferredModules: (root: string, files: ReadonlyArray<string>) => Plugin }
const esbuild = (await import("esbuild")) as unknown as Esbuild

// The fixture's import lines are made, not written out: the packaging scan reads
// this file's own imports from its text.
const quoted = (specifier: string): string => JSON.stringify(specifier)

/** A folder with a package `tables` whose modules say when they run, a deferring module and an entry. */
const project = (deferring: string): string => {
  const root = tempDir("deferred")
  const pkg = join(root, "node_modules", "tables")
  mkdirSync(pkg, { recursive: true })
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name: "tables", type: "module", exports: { "./all": { import: "./all.js" }, "./other": { import: "./other.js" } } }),
  )
  writeFileSync(join(pkg, "all.js"), "globalThis.ran.push('all')\nexport const size = 42\n")
  writeFileSync(join(pkg, "other.js"), "globalThis.ran.push('other')\nexport const size = 7\n")
  mkdirSync(join(root, "src"))
  writeFileSync(join(root, "src", "Tables.ts"), deferring)
  writeFileSync(
    join(root, "src", "main.ts"),
    [
      `import { loadSize, SIZES } from ${quoted("./Tables.js")}`,
      `globalThis.ran.push("main")`,
      `export const size = (): number => loadSize()`,
      `export const other = (): number => SIZES.get("other")!()`,
    ].join("\n"),
  )
  return root
}

const DEFERRING = [
  `import * as allModule from ${quoted("tables/all")}`,
  `import * as otherModule from ${quoted("tables/other")}`,
  `// allModule and otherModule are read only inside functions.`,
  `export const loadSize = (): number => allModule.size`,
  `export const SIZES: ReadonlyMap<string, () => number> = new Map([["other", () => otherModule.size]])`,
].join("\n")

const bundle = async (root: string): Promise<string> => {
  const result = await esbuild.build({
    entryPoints: [join(root, "src", "main.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    write: false,
    logLevel: "silent",
    plugins: [deferredModules(root, ["src/Tables.ts"])],
  })
  return result.outputFiles[0]!.text
}

const run = (code: string) => {
  const ran: Array<string> = []
  const module = { exports: {} as { size?: () => number; other?: () => number } }
  const context = globalThis as { ran?: Array<string> }
  context.ran = ran
  try {
    new Script(`(function (exports, module) {${code}\n})`).runInThisContext()(module.exports, module)
    const steps: Array<[number | string, ReadonlyArray<string>]> = [["start", [...ran]]]
    for (const read of [module.exports.size!, module.exports.size!, module.exports.other!, module.exports.other!]) {
      steps.push([read(), [...ran]])
    }
    return steps
  } finally {
    delete context.ran
  }
}

describe("deferred modules in the build", () => {
  it("each package module runs on the first read through it, once, and gives what the import gives", async () => {
    expect(run(await bundle(project(DEFERRING)))).toStrictEqual([
      ["start", ["main"]],
      [42, ["main", "all"]],
      [42, ["main", "all"]],
      [7, ["main", "all", "other"]],
      [7, ["main", "all", "other"]],
    ])
  })

  it("a namespace used otherwise than as name.x is refused by name, not bundled eagerly", async () => {
    const whole = `${DEFERRING}\nexport const everything = () => allModule\n`
    await expect(bundle(project(whole))).rejects.toThrow(
      "src/Tables.ts uses the namespace allModule otherwise than as allModule.<name>: the build cannot defer it",
    )
    await expect(bundle(project(`export const loadSize = () => 1\nexport const SIZES = new Map()\n`))).rejects.toThrow(
      "src/Tables.ts has no namespace import to defer",
    )
  })
})
