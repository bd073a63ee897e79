// An esbuild plugin for the command's bundle: a JSON file imported by the
// bundled code (pi-ai's model catalogue is 1.1 MB of it, all read when the
// providers load) becomes `module.exports = JSON.parse("…")` rather than
// esbuild's object literal. V8 reads JSON text much faster than it compiles
// and runs an object literal of the same data, and the value is the same: the
// object JSON gives (a `"__proto__"` key is a plain key, as in JSON). A named
// import of a top-level key still works, through esbuild's CommonJS interop.
import { readFile } from "node:fs/promises"

export const jsonParse = () => ({
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
      return { contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(value))});\n`, loader: "js" }
    })
  },
})
