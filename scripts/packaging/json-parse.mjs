// An esbuild plugin for the command's bundle: a JSON file imported by the
// bundled code becomes `module.exports = JSON.parse("…")` rather than
// esbuild's object literal. V8 reads JSON text much faster than it compiles
// and runs an object literal of the same data, and the value is the same: the
// object JSON gives (a `"__proto__"` key is a plain key, as in JSON). A named
// import of a top-level key still works, through esbuild's CommonJS interop.
//
// With `data` (a folder beside the script, and the script's own folder), a
// file of `LARGE` bytes or more is not put in the script at all: it is written
// to `<data>/<name>-<hash>.json` and read from there when its module first
// runs. Most of pi-ai's model catalogue (0.9 of its 1.1 MB) is such files,
// which every start of the command would otherwise read; a route to one
// provider reads that provider's file at most.
import { createHash } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { basename, join, relative } from "node:path"

const LARGE = 16 * 1024

export const jsonParse = (data) => ({
  name: "json-parse",
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, async ({ path }) => {
      const text = await readFile(path, "utf8")
      let value
      try {
        value = JSON.parse(text)
      } catch (error) {
        return { errors: [{ text: `${path} is not JSON: ${error.message}` }] }
      }
      const json = JSON.stringify(value)
      if (data === undefined || json.length < LARGE) return { contents: `module.exports = JSON.parse(${JSON.stringify(json)});\n`, loader: "js" }
      const name = `${basename(path, ".json")}-${createHash("sha256").update(json).digest("hex").slice(0, 12)}.json`
      mkdirSync(data.folder, { recursive: true })
      writeFileSync(join(data.folder, name), json)
      const file = relative(data.script, join(data.folder, name))
      return {
        contents: `module.exports = JSON.parse(require("node:fs").readFileSync(require("node:path").join(__dirname, ${JSON.stringify(file)}), "utf8"));\n`,
        loader: "js",
      }
    })
  },
})
