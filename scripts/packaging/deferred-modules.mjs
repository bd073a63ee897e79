// An esbuild plugin for the command's bundle: in the source modules it is
// given, each namespace import of a package module (`import * as name from
// "specifier"`) is deferred until the module is first used. The import becomes
// a function that `require`s the package module (once), and each use
// `name.x` becomes a call of it. esbuild wraps a module reached only through
// `require` in a function run on the first call, so the package module runs
// when the command first reads from it, not when the command starts.
//
// A deferring module reads its namespaces only inside functions (a table of
// loaders, say); at the top level a read would run the module at once, as the
// plain import does. The sources keep the plain imports (their tests run the
// modules at once); every value read is the same either way. A namespace used
// otherwise than as `name.x` (passed whole, or in a type) is refused by name:
// the build cannot defer it.
//
// `files` lists the source files (relative to the repository).
import { readFile } from "node:fs/promises"
import { dirname, join, relative } from "node:path"

const NAMESPACE_IMPORT = /^import \* as (\w+) from "([^"]+)"\n/gm
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*).*$/gm

export const deferredModules = (root, files) => ({
  name: "deferred-modules",
  setup(build) {
    const paths = new Set(files.map((file) => join(root, file)))
    const filter = new RegExp(`^(${[...paths].map((path) => path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})$`)
    build.onLoad({ filter }, async ({ path }) => {
      const name = relative(root, path)
      let contents = await readFile(path, "utf8")
      const imports = [...contents.matchAll(NAMESPACE_IMPORT)]
      if (imports.length === 0) return { errors: [{ text: `${name} has no namespace import to defer` }] }
      const loaders = []
      for (const [line, local, specifier] of imports) {
        // Resolved as an import is (a package may export a module to `import` only), then required by its path.
        const target = await build.resolve(specifier, { kind: "import-statement", resolveDir: dirname(path) })
        if (target.errors.length > 0) return { errors: target.errors }
        contents = contents.replace(line, "")
        contents = contents.replaceAll(new RegExp(`\\b${local}\\.`, "g"), `${local}$deferred().`)
        if (new RegExp(`(?<![\\w$.])${local}\\b(?!\\$deferred)`).test(contents.replace(COMMENT_LINE, ""))) {
          return { errors: [{ text: `${name} uses the namespace ${local} otherwise than as ${local}.<name>: the build cannot defer it` }] }
        }
        loaders.push(`let ${local}$module\nconst ${local}$deferred = () => (${local}$module ??= require(${JSON.stringify(target.path)}))\n`)
      }
      return { contents: loaders.join("") + contents, loader: "ts", resolveDir: dirname(path) }
    })
  },
})
