// How the build bundles JSON (scripts/packaging/json-parse.mjs): a JSON file
// becomes `JSON.parse` of its text, and one of 16 KB or more, given a data
// folder, a file of its own there, read when its module first runs (pi-ai's
// model tables: every start of the command would otherwise read them). Bundled
// here with esbuild and the plugin, and run from the bundle's folder.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

type Plugin = { readonly name: string }
interface Esbuild {
  readonly build: (options: Record<string, unknown>) => Promise<unknown>
}

const plugin = new URL("../../../scripts/packaging/json-parse.mjs", import.meta.url).href
const { jsonParse } = (await import(plugin)) as {
  jsonParse: (data?: { readonly folder: string; readonly script: string }) => Plugin
}
const esbuild = (await import("esbuild")) as unknown as Esbuild

const quoted = (specifier: string): string => JSON.stringify(specifier)

const models = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`model-${i}`, { id: `model-${i}`, contextWindow: 1000 * i }]))
// One entry with a key "__proto__", as JSON may have: a plain key of the value, not its prototype.
const modelsText = JSON.stringify(models).replace(`"id":"model-7"`, `"id":"model-7","__proto__":7`)

/** A project importing a large and a small JSON file, bundled into `out/main.cjs`; the bundle's text and what it exports. */
const bundled = async (data: boolean) => {
  const root = tempDir("json")
  mkdirSync(join(root, "src"))
  const large = JSON.parse(modelsText) as unknown
  writeFileSync(join(root, "src", "large.json"), JSON.stringify(large, null, 2))
  writeFileSync(join(root, "src", "small.json"), JSON.stringify({ name: "small", sizes: [1, 2, 3] }))
  writeFileSync(
    join(root, "src", "main.ts"),
    [
      `import large from ${quoted("./large.json")}`,
      `import small from ${quoted("./small.json")}`,
      `export const read = () => ({ large, small })`,
    ].join("\n"),
  )
  const out = join(root, "out")
  await esbuild.build({
    entryPoints: [join(root, "src", "main.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: join(out, "main.cjs"),
    logLevel: "silent",
    plugins: [jsonParse(data ? { folder: join(out, "data"), script: out } : undefined)],
  })
  const text = readFileSync(join(out, "main.cjs"), "utf8")
  const files = data ? readdirSync(join(out, "data")) : []
  const { read } = createRequire(import.meta.url)(join(out, "main.cjs")) as { read: () => { large: unknown; small: unknown } }
  return { text, files, value: read(), large }
}

describe("JSON in the build", () => {
  it("a large file, given a data folder, is a file of its own read when used, with the value JSON gives", async () => {
    const { text, files, value, large } = await bundled(true)
    expect(files).toHaveLength(1)
    expect(files[0]).toMatch(/^large-[0-9a-f]{12}\.json$/)
    expect(text).not.toContain("model-399")
    expect(text).toContain(`JSON.parse('{"name":"small","sizes":[1,2,3]}')`)
    expect(value).toStrictEqual({ large, small: { name: "small", sizes: [1, 2, 3] } })
    expect(Object.getPrototypeOf((value.large as Record<string, object>)["model-7"])).toBe(Object.prototype)
    expect(Object.hasOwn((value.large as Record<string, object>)["model-7"]!, "__proto__")).toBe(true)
  })

  it("without a data folder every file is in the script, with the same value", async () => {
    const { text, files, value, large } = await bundled(false)
    expect(files).toStrictEqual([])
    expect(text).toContain("model-399")
    expect(value).toStrictEqual({ large, small: { name: "small", sizes: [1, 2, 3] } })
  })
})
