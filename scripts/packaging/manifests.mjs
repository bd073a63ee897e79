// Rewrites every workspace package's package.json (and writes its
// tsconfig.build.json) from the source tree, so the published shape is derived,
// not hand-kept: re-run it after a merge that adds a module, an import or a
// package, and commit what it changes. `--check` fails (exit 1) instead of
// writing when anything would change; the packaging test runs it that way.
//
// What it derives, per package:
// - exports: "." and one subpath per top-level module in src/ (src/internal/ is
//   never exported); each entry is { "@turnlog/source": src .ts, types: dist
//   .d.ts, import: dist .js }. The "@turnlog/source" condition is set only
//   inside this repository (tsconfig customConditions, vitest, tsx, esbuild),
//   so the monorepo runs and type-checks the sources while an installed package
//   resolves to dist.
// - dependencies: exactly the packages imported by src/ and bin/ (siblings as
//   ^<version>); packages imported only by test/, bench/ are devDependencies.
// - effect and @effect/* imported by src/ become peerDependencies (and stay
//   devDependencies with the pinned range, for the monorepo's own install);
//   the drivers listed in OPTIONAL_PEERS are optional peers.
// - files, license (and a copy of the root LICENSE), engines; private stays
//   only on PRIVATE.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const check = process.argv.includes("--check")

/** Not published: the command (bundled by scripts/build-cli.mjs) and the test support. */
const PRIVATE = new Set(["cli", "testkit"])
/** Built by scripts/build-cli.mjs (esbuild) into its own dist/, not by tsc. */
const BUNDLED = new Set(["cli"])
/** Drivers a user installs only for the store engine they choose (loaded lazily). */
const OPTIONAL_PEERS = {
  // better-sqlite3 comes with @effect/sql-sqlite-node (^12, which runs on Node 20).
  store: ["@effect/experimental", "@effect/sql", "@effect/sql-sqlite-node", "@effect/sql-pg"],
}
/** Effect 3 only: Effect 4 (effect@4, @effect/* 4.x) is not supported. */
const EFFECT_PEER = "^3.22.4"
const isEffect = (name) => name === "effect" || name.startsWith("@effect/")

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"))
/** The root's dev tools (vitest, tsx, typescript…) are installed once, for every package. */
const rootDev = new Set(Object.keys(readJson(join(root, "package.json")).devDependencies ?? {}))
const packages = readdirSync(join(root, "packages")).filter((name) => existsSync(join(root, "packages", name, "package.json")))
const manifests = Object.fromEntries(packages.map((name) => [name, readJson(join(root, "packages", name, "package.json"))]))
const siblings = new Map(packages.map((name) => [manifests[name].name, name]))

// Every range declared anywhere in the workspace: a package that starts
// importing something another package already depends on gets the same range.
const knownRanges = new Map()
for (const manifest of [readJson(join(root, "package.json")), ...Object.values(manifests)]) {
  for (const field of ["devDependencies", "dependencies", "peerDependencies"]) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (!siblings.has(name) && !(field === "peerDependencies" && isEffect(name))) knownRanges.set(name, range)
    }
  }
}

const walk = (dir, out = []) => {
  if (!existsSync(dir)) return out
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "fixtures-out") walk(path, out)
    } else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) out.push(path)
  }
  return out
}

// import/export … from "x", import("x"), import "x"
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)["']([@a-z0-9][\w@./-]*)["']/gm
const packageOf = (specifier) => {
  if (specifier.startsWith("node:")) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}
const importsOf = (dirs) => {
  const found = new Set()
  for (const dir of dirs) {
    for (const file of walk(dir)) {
      for (const match of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
        const name = packageOf(match[1])
        if (name !== undefined && !BUILTINS.has(name)) found.add(name)
      }
    }
  }
  return found
}
const BUILTINS = new Set([
  "fs",
  "path",
  "url",
  "os",
  "child_process",
  "crypto",
  "events",
  "stream",
  "util",
  "net",
  "http",
  "readline",
  "module",
  "process",
  "assert",
  "worker_threads",
  "timers",
])

const sorted = (object) => Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)))
const rangeOf = (name, owner) => {
  if (siblings.has(name)) return `^${manifests[siblings.get(name)].version}`
  const range = knownRanges.get(name)
  if (range === undefined) throw new Error(`packages/${owner}: imports ${name}, which no package.json in the workspace declares`)
  return range
}

const entryPoints = (name) => {
  const src = join(root, "packages", name, "src")
  const modules = readdirSync(src)
    .filter((file) => file.endsWith(".ts") && file !== "index.ts" && !file.endsWith(".d.ts") && statSync(join(src, file)).isFile())
    .map((file) => file.slice(0, -3))
    .sort()
  const entry = (module) => ({
    "@turnlog/source": `./src/${module}.ts`,
    types: `./dist/${module}.d.ts`,
    import: `./dist/${module}.js`,
  })
  const exports = { ".": entry("index") }
  for (const module of modules) exports[`./${module}`] = entry(module)
  exports["./package.json"] = "./package.json"
  return exports
}

const license = readFileSync(join(root, "LICENSE"), "utf8")
let changed = 0
const write = (file, text) => {
  const old = existsSync(file) ? readFileSync(file, "utf8") : undefined
  if (old === text) return
  changed++
  if (check) console.error(`packaging: ${file.slice(root.length)} is not what scripts/packaging/manifests.mjs derives`)
  else writeFileSync(file, text)
}

for (const name of packages) {
  const dir = join(root, "packages", name)
  const old = manifests[name]
  const runtime = importsOf([join(dir, "src"), join(dir, "bin")])
  runtime.delete(old.name)
  const testOnly = importsOf([join(dir, "test"), join(dir, "bench")])
  testOnly.delete(old.name)
  for (const used of runtime) testOnly.delete(used)
  // A dev dependency that is not imported (a server a test starts by path, a
  // tool a script runs) is kept as declared.
  const declaredDev = Object.keys(old.devDependencies ?? {}).filter((dep) => !runtime.has(dep) && !isEffect(dep))

  const dependencies = {}
  const peerDependencies = {}
  const peerDependenciesMeta = {}
  const devDependencies = {}
  const optional = new Set(OPTIONAL_PEERS[name] ?? [])
  for (const dep of runtime) {
    if (isEffect(dep) || optional.has(dep)) {
      peerDependencies[dep] = dep === "effect" ? EFFECT_PEER : rangeOf(dep, name)
      devDependencies[dep] = rangeOf(dep, name)
      if (optional.has(dep)) peerDependenciesMeta[dep] = { optional: true }
    } else dependencies[dep] = rangeOf(dep, name)
  }
  // Optional drivers are peers even while their module is being written.
  for (const dep of optional) {
    const declared = old.dependencies?.[dep] ?? old.peerDependencies?.[dep]
    if (peerDependencies[dep] === undefined && knownRanges.has(dep) && declared !== undefined) {
      peerDependencies[dep] = rangeOf(dep, name)
      devDependencies[dep] = rangeOf(dep, name)
      peerDependenciesMeta[dep] = { optional: true }
    }
  }
  for (const dep of [...testOnly, ...declaredDev]) {
    if (!rootDev.has(dep)) devDependencies[dep] = rangeOf(dep, name)
  }

  const isPrivate = PRIVATE.has(name)
  const next = {
    name: old.name,
    version: old.version,
    ...(old.description !== undefined ? { description: old.description } : {}),
    ...(isPrivate ? { private: true } : {}),
    license: "MIT",
    type: "module",
    engines: { node: ">=20" },
    ...(old.bin !== undefined ? { bin: old.bin } : {}),
    exports: BUNDLED.has(name) ? { ".": { "@turnlog/source": "./src/index.ts" }, "./package.json": "./package.json" } : entryPoints(name),
    files: BUNDLED.has(name) ? ["bin", "dist", "src", "README.md", "LICENSE"] : ["dist", "src", "README.md", "LICENSE"],
    ...(old.scripts !== undefined ? { scripts: old.scripts } : {}),
    ...(Object.keys(dependencies).length > 0 ? { dependencies: sorted(dependencies) } : {}),
    ...(Object.keys(peerDependencies).length > 0 ? { peerDependencies: sorted(peerDependencies) } : {}),
    ...(Object.keys(peerDependenciesMeta).length > 0 ? { peerDependenciesMeta: sorted(peerDependenciesMeta) } : {}),
    ...(Object.keys(devDependencies).length > 0 ? { devDependencies: sorted(devDependencies) } : {}),
  }
  write(join(dir, "package.json"), JSON.stringify(next, null, 2) + "\n")
  write(join(dir, "LICENSE"), license)

  if (!BUNDLED.has(name)) {
    const references = Object.keys(dependencies)
      .filter((dep) => siblings.has(dep))
      .sort()
      .map((dep) => ({ path: `../${siblings.get(dep)}/tsconfig.build.json` }))
    const build = {
      extends: "./tsconfig.json",
      compilerOptions: {
        rootDir: "src",
        outDir: "dist",
        tsBuildInfoFile: "build/tsconfig.build.tsbuildinfo",
        emitDeclarationOnly: false,
        declarationMap: true,
        sourceMap: true,
      },
      include: ["src"],
      references,
    }
    write(join(dir, "tsconfig.build.json"), JSON.stringify(build, null, 2) + "\n")
  }
}

const built = packages.filter((name) => !BUNDLED.has(name)).map((name) => ({ path: `packages/${name}/tsconfig.build.json` }))
write(join(root, "tsconfig.build.json"), JSON.stringify({ files: [], references: built }, null, 2) + "\n")

if (check && changed > 0) process.exit(1)
console.error(`packaging: ${changed === 0 ? "every manifest is as derived" : `${changed} file(s) ${check ? "differ" : "written"}`}`)
