// An esbuild plugin for the command's bundle: `import { Effect, Schema } from
// "effect"` in the workspace's sources becomes `import * as Effect from
// "effect/Effect"` and `import * as Schema from "effect/Schema"`, and likewise
// for the @effect/* packages and the workspace's own. Through a package index
// each name is a namespace object that holds every export of its module, so the
// bundle kept all of them (effect's index brought fast-check's arbitraries along,
// and @turnlog/mcp's its MCP client for the config's schema); imported by module
// path, only the functions the command calls are kept. The sources keep the
// shorter form, which is what effect's own documentation writes.
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"

const IMPORT = /^import\s*\{([^}]*)\}\s*from\s*"(effect|@effect\/[a-z-]+|@turnlog\/[a-z-]+)"/gm
const NAMESPACE = /export \* as (\w+) from "\.\/(\w+)\.js"/g

/**
 * Whether `pkg/Name` is a module the package exports and its index re-exports
 * whole as `Name` (`export * as Name from "./Name.js"`), so that the two
 * imports mean the same.
 */
const exporter = (root) => {
  const known = new Map()
  const read = (pkg) => {
    const dir = join(root, "node_modules", pkg)
    const manifest = join(dir, "package.json")
    if (!statSync(manifest, { throwIfNoEntry: false })) return new Set()
    const exports = JSON.parse(readFileSync(manifest, "utf8")).exports ?? {}
    const entry = exports["."]?.["@turnlog/source"] ?? exports["."]?.import
    if (typeof entry !== "string") return new Set()
    const names = new Set()
    for (const [, name, file] of readFileSync(join(dir, entry), "utf8").matchAll(NAMESPACE)) {
      if (name === file && `./${name}` in exports) names.add(name)
    }
    return names
  }
  return (pkg, name) => {
    if (!known.has(pkg)) known.set(pkg, read(pkg))
    return known.get(pkg).has(name)
  }
}

/**
 * The statement rewritten, or undefined when one of its names is not a module of
 * the package (then it is left as written).
 */
const rewrite = (specifiers, pkg, exports) => {
  const lines = []
  for (const raw of specifiers.split(",")) {
    const specifier = raw.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, "").trim()
    if (specifier === "" || specifier.startsWith("type ")) continue
    const [name, local = name] = specifier.split(/\s+as\s+/)
    if (!/^[A-Z]\w*$/.test(name) || !exports(pkg, name)) return undefined
    lines.push(`import * as ${local} from "${pkg}/${name}"`)
  }
  return lines.join("; ")
}

/** The plugin, for the TypeScript files under `root`'s packages/ (not node_modules). */
export const modulePaths = (root) => {
  const exports = exporter(root)
  return {
    name: "module-paths",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes("node_modules") || !args.path.startsWith(join(root, "packages"))) return undefined
        const source = readFileSync(args.path, "utf8")
        // The statement's line breaks are kept, so the source map's lines stay right.
        const contents = source.replace(IMPORT, (statement, specifiers, pkg) => {
          const rewritten = rewrite(specifiers, pkg, exports)
          return rewritten === undefined ? statement : rewritten + "\n".repeat(statement.split("\n").length - 1)
        })
        return { contents, loader: "ts" }
      })
    },
  }
}
