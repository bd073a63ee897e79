// The build's deferred modules (scripts/packaging/deferred-modules.mjs): a
// source module that only hands out a package module through a function is
// bundled so that the package module runs on the function's first call, not
// when the bundle starts (how pi-ai's built-in catalog stays unbuilt for a
// route of the config's own). Bundled here with esbuild and the plugin, and run.
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
const { deferredModules } = (await import(plugin)) as {
  deferredModules: (root: string, modules: Record<string, { specifier: string; name: string }>) => Plugin
}
const esbuild = (await import("esbuild")) as unknown as Esbuild

/** A folder with a package `tables` whose module says when it runs, a deferring module and an entry. */
const project = (deferring: string): string => {
  const root = tempDir("deferred")
  mkdirSync(join(root, "node_modules", "tables"), { recursive: true })
  writeFileSync(
    join(root, "node_modules", "tables", "package.json"),
    JSON.stringify({ name: "tables", type: "module", exports: { "./all": { import: "./all.js" } } }),
  )
  writeFileSync(join(root, "node_modules", "tables", "all.js"), "globalThis.ran.push('tables')\nexport const size = 42\n")
  mkdirSync(join(root, "src"))
  writeFileSync(join(root, "src", "Tables.ts"), deferring)
  writeFileSync(
    join(root, "src", "main.ts"),
    [
      `import { loadTables } from "./Tables.js"`,
      `globalThis.ran.push("main")`,
      `export const size = (): number => loadTables().size`,
    ].join("\n"),
  )
  return root
}

const bundle = async (root: string): Promise<string> => {
  const result = await esbuild.build({
    entryPoints: [join(root, "src", "main.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    write: false,
    logLevel: "silent",
    plugins: [deferredModules(root, { "src/Tables.ts": { specifier: "tables/all", name: "loadTables" } })],
  })
  return result.outputFiles[0]!.text
}

const run = (code: string) => {
  const ran: Array<string> = []
  const module = { exports: {} as { size?: () => number } }
  const context = globalThis as { ran?: Array<string> }
  context.ran = ran
  try {
    new Script(`(function (exports, module) {${code}\n})`).runInThisContext()(module.exports, module)
    const before = [...ran]
    const size = module.exports.size!()
    const again = module.exports.size!()
    return { before, size, again, after: ran }
  } finally {
    delete context.ran
  }
}

describe("deferred modules in the build", () => {
  it("the package module runs on the first call of the function, once, and the function gives it", async () => {
    const root = project(`import * as tables from "tables/all"\nexport const loadTables = (): typeof tables => tables\n`)
    expect(run(await bundle(root))).toStrictEqual({ before: ["main"], size: 42, again: 42, after: ["main", "tables"] })
  })

  it("a source that no longer imports the package is refused by name, not bundled as it is", async () => {
    const root = project(`export const loadTables = () => ({ size: 1 })\n`)
    await expect(bundle(root)).rejects.toThrow('src/Tables.ts no longer imports "tables/all" and exports loadTables: the build cannot defer it')
  })
})
