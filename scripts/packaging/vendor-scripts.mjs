// The provider SDKs behind pi-ai (OpenAI's, Anthropic's, Google's) as scripts
// of their own beside the command's: `dist/vendor/<file>.cjs`. Each is a
// megabyte or so that a command reads and compiles only when a request goes to
// that provider, and never for `sessions`, `show` or `acp`'s start. Every start
// reads the whole command script, so a third less of it is a third less to read.
//
// In the command's bundle an import of one of them resolves to a small module
// (`shim`) that takes the SDK's exports from the launcher
// (`globalThis[Symbol.for("turnlog/vendor")](file)`, see `bin/turnlog.js`,
// which loads the script with its own code cache) and re-exports them by name:
// the names are the package's own, read by importing it here, so the bundle's
// importers see the same default and named exports as from the package.
// Since pi-ai imports each SDK only from its provider modules, which load on a
// provider's first request, the SDK's script is read then too.

/** The packages, imported by their package name only (pi-ai imports no subpath of them at run time). */
export const VENDORS = ["openai", "@anthropic-ai/sdk", "@google/genai"]

/** A package's script name: `dist/vendor/<file>.cjs`. */
export const vendorFile = (name) => name.replace(/^@/, "").replace("/", "__")

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/** The module the bundle has in place of package `name`, whose exports are `names`. */
const shim = (name, names) => {
  const named = names.filter((key) => key !== "default")
  const odd = named.find((key) => !IDENTIFIER.test(key))
  if (odd !== undefined) throw new Error(`turnlog: ${name} exports ${JSON.stringify(odd)}, which a module cannot re-export by that name`)
  const get = `globalThis[Symbol.for("turnlog/vendor")](${JSON.stringify(vendorFile(name))})`
  return [
    `const vendored = ${get};`,
    names.includes("default") ? "export default vendored.default;" : "",
    named.length > 0 ? `export const { ${named.join(", ")} } = vendored;` : "",
  ].join("\n")
}

/** The export names of each package, as Node's import gives them. */
export const exportNames = async () => {
  const names = {}
  for (const name of VENDORS) names[name] = Object.keys(await import(name)).sort()
  return names
}

/** An esbuild plugin for the command's bundle: each package in `VENDORS` resolves to its shim. */
export const vendorShims = (names) => ({
  name: "vendor-shims",
  setup(build) {
    const filter = new RegExp(`^(${VENDORS.map((name) => name.replace(/[/.@-]/g, "\\$&")).join("|")})$`)
    build.onResolve({ filter }, ({ path }) => ({ path, namespace: "turnlog-vendor" }))
    build.onLoad({ filter: /.*/, namespace: "turnlog-vendor" }, ({ path }) => ({ contents: shim(path, names[path]), loader: "js" }))
  },
})

/** The entry of package `name` (whose exports are `names`)'s script: its namespace as the script's exports. */
export const vendorEntry = (name, names, root) => ({
  contents: `export * from ${JSON.stringify(name)};\n` +
    (names.includes("default") ? `export { default } from ${JSON.stringify(name)};\n` : ""),
  resolveDir: root,
  sourcefile: `${vendorFile(name)}-entry.js`,
  loader: "js",
})
