// An esbuild plugin for the command's bundle: a module of the sources that
// does nothing but import a package module and hand it out through a function
// (`export const <name> = () => <namespace>`) is replaced by one whose function
// `require`s that module. esbuild wraps a module reached only through
// `require` in a function run on the first call, so the package module runs
// when the command first asks for it, not when the command starts. The
// sources keep the plain import (their tests run it at once); what the
// function returns is the same module either way.
//
// `modules` maps a source file (relative to the repository) to the specifier
// it imports and the name of the function it exports.
import { readFile } from "node:fs/promises"
import { dirname, join, relative } from "node:path"

export const deferredModules = (root, modules) => ({
  name: "deferred-modules",
  setup(build) {
    const byPath = new Map(Object.entries(modules).map(([file, spec]) => [join(root, file), spec]))
    const filter = new RegExp(`^(${[...byPath.keys()].map((path) => path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})$`)
    build.onLoad({ filter }, async ({ path }) => {
      const { specifier, name } = byPath.get(path)
      // The source must still be what is replaced: an import of `specifier` handed out by `name`.
      const source = await readFile(path, "utf8")
      if (!source.includes(`from "${specifier}"`) || !source.includes(`export const ${name} = `)) {
        return { errors: [{ text: `${relative(root, path)} no longer imports "${specifier}" and exports ${name}: the build cannot defer it` }] }
      }
      // Resolved as an import would be (the package exports it to `import` only), then required by its path.
      const target = await build.resolve(specifier, { kind: "import-statement", resolveDir: dirname(path) })
      if (target.errors.length > 0) return { errors: target.errors }
      return { contents: `export const ${name} = () => require(${JSON.stringify(target.path)});\n`, loader: "js", resolveDir: dirname(path) }
    })
  },
})
