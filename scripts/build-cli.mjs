// Builds the `turnlog` command into plain JavaScript: the workspace's
// TypeScript sources and their pure-JavaScript dependencies bundled into
// `packages/cli/dist/` (one script, whose lazily loaded commands run their
// modules on first use), tree-shaken to what the command uses. Started from the
// bundle, the command neither compiles TypeScript nor resolves and reads a
// thousand files of packages at run time, which was most of its start-up.
//
// `dist/inputs.json` lists the source files the bundle was built from (and npm's
// record of the installed packages): the
// launcher (`packages/cli/bin/turnlog.js`) uses the bundle only while none of
// them is newer than it, and runs the sources otherwise, so an edit is never
// hidden by a stale build. Run by `npm ci` (prepare), `npm test` and `npm run build`.
import { build, transform } from "esbuild"
import { createHash } from "node:crypto"
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { deferredModules } from "./packaging/deferred-modules.mjs"
import { jsonParse } from "./packaging/json-parse.mjs"
import { modulePaths } from "./packaging/module-paths.mjs"
import { exportNames, vendorEntry, vendorFile, VENDORS, vendorShims } from "./packaging/vendor-scripts.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
const cli = join(root, "packages", "cli")
const out = join(cli, "dist")

// Pure-JS dependencies are bundled, so that tree-shaking keeps only what the
// command uses (effect alone is hundreds of files through its index). Native
// modules, and the large optional ones loaded only on the paths that need them
// (PostgreSQL, SQLite, the AI SDK), stay external: loaded by Node as
// published, when first used.
//
// pi-ai and the provider SDKs it uses are bundled: loaded as published they are
// hundreds of files, which Node's module loader opens many at a time — under a
// low descriptor limit (`ulimit -n 64`) loading them failed with EMFILE. pi-ai
// keeps each provider's implementation behind a dynamic import, run on its
// first request; the SDKs themselves are scripts of their own, read only then
// (`packaging/vendor-scripts.mjs`). The AWS SDK (Bedrock only) stays external.
const external = [
  "better-sqlite3",
  "pg",
  "pg-native",
  "@aws-sdk/*",
  "@smithy/*",
  "@ai-sdk/*",
  "ai",
  "tsx",
]

rmSync(out, { recursive: true, force: true })
const started = Date.now()
const shared = {
  bundle: true,
  platform: "node",
  target: "node20",
  sourcemap: true,
  external: external.flatMap((name) => (name.endsWith("/*") ? [name] : [name, `${name}/*`])),
  tsconfig: join(cli, "tsconfig.json"),
  // The workspace's packages resolve to their sources, not their dist/ builds.
  conditions: ["@turnlog/source"],
  plugins: [
    // pi-ai's built-in providers run when a route first needs one (packages/llm-pi-ai/src/internal/BuiltinCatalog.ts).
    // First: the first plugin to load a file decides what it holds.
    deferredModules(root, ["packages/llm-pi-ai/src/internal/BuiltinCatalog.ts"]),
    modulePaths(root),
    jsonParse(),
  ],
  metafile: true,
  logLevel: "warning",
}
// A script the launcher compiles with its code cache: CommonJS, whitespace and
// comments left out (every start reads the whole script; the source map still
// points into the sources), and the body of the function Node would wrap a
// CommonJS module in written out, so the launcher compiles the text as it is
// read, without joining a copy of it to a wrapper (`bin/turnlog.js`). Licence
// comments go to `<script>.LEGAL.txt`. What a command loads lazily stays lazy
// inside it: esbuild wraps each module reached through a dynamic import in a
// function run on its first import, and turns the dynamic imports of the
// external packages into `require`s (they all publish CommonJS).
const script = {
  ...shared,
  format: "cjs",
  supported: { "dynamic-import": false },
  legalComments: "external",
  minifyWhitespace: true,
  define: { "import.meta.url": "__turnlogImportMetaUrl" },
  banner: {
    js: '(function (exports, require, module, __filename, __dirname) {var __turnlogImportMetaUrl = require("node:url").pathToFileURL(__filename).href;',
  },
  footer: { js: "})" },
}
const names = await exportNames()
const [command, early, ...vendored] = await Promise.all([
  // The command, `dist/main.cjs`; the provider SDKs are scripts of their own (`packaging/vendor-scripts.mjs`).
  build({
    ...script,
    // Large JSON files (pi-ai's model tables) are files of their own in dist/data/, read when used (packaging/json-parse.mjs).
    plugins: [...shared.plugins.filter((p) => p.name !== "json-parse"), jsonParse({ folder: join(out, "data"), script: out }), vendorShims(names)],
    entryPoints: { main: join(cli, "src", "main.ts") },
    outdir: out,
    outExtension: { ".js": ".cjs" },
  }),
  // `acpEarly` answers `initialize` for the launcher before the command loads
  // (src/AcpEarly.ts): a small ES module of its own.
  build({
    ...shared,
    entryPoints: { acpEarly: join(cli, "src", "AcpEarly.ts") },
    outdir: out,
    format: "esm",
    // Bundled CommonJS calls `require` for Node's own modules: give it one.
    banner: { js: 'import { createRequire as __turnlogCreateRequire } from "node:module"; const require = __turnlogCreateRequire(import.meta.url);' },
  }),
  ...VENDORS.map((name) => build({ ...script, stdin: vendorEntry(name, names[name], root), outfile: join(out, "vendor", `${vendorFile(name)}.cjs`) })),
])

// The launcher reads each script as Latin-1, which is exact, and cheapest for
// V8, only for ASCII text. esbuild writes code as ASCII (it escapes every other
// character in strings, templates, regular expressions and names) and copies
// comments it keeps as they are: each other character left becomes "?" ("??"
// for one of two UTF-16 units, which keeps the source map's columns). That only
// comments changed is checked: the text without comments is the same before and after.
const asciiOnly = async (file) => {
  const written = readFileSync(file, "utf8")
  const text = written.replace(/[^\x00-\x7f]/gu, (char) => "?".repeat(char.length))
  if (text !== written) {
    const code = (source) => transform(source, { minifyWhitespace: true, legalComments: "none" }).then((r) => r.code)
    const [before, after] = await Promise.all([code(written), code(text)])
    if (before !== after) throw new Error(`turnlog: ${relative(root, file)} has characters other than ASCII outside its comments`)
    writeFileSync(file, text)
  }
  return text
}
const scripts = [join(out, "main.cjs"), ...VENDORS.map((name) => join(out, "vendor", `${vendorFile(name)}.cjs`))]
const texts = await Promise.all(scripts.map(asciiOnly))
// The build's identity, for the launcher's code cache: a cache made from another build is never used.
const id = createHash("sha256")
for (const text of texts) id.update(text)
writeFileSync(join(out, "build-id"), `${id.digest("hex").slice(0, 32)}\n`)
const result = { metafile: { inputs: Object.assign({}, ...[command, early, ...vendored].map((r) => r.metafile.inputs)) } }

// The workspace's sources, one by one; the bundled packages through npm's record
// of what is installed, which every install that changes node_modules rewrites
// (a file per package would cost the launcher a thousand stat calls a start).
const installed = join(root, "node_modules", ".package-lock.json")
const inputs = Object.keys(result.metafile.inputs)
  .filter((input) => !input.split("/").includes("node_modules"))
  // Modules made by the build itself (the SDKs' shims and their scripts' entries) are no file.
  .filter((input) => statSync(join(root, input), { throwIfNoEntry: false }) !== undefined)
  .concat(statSync(installed, { throwIfNoEntry: false }) ? [relative(root, installed)] : [])
  .map((input) => relative(cli, join(root, input)))
  .sort()
writeFileSync(join(out, "inputs.json"), JSON.stringify(inputs, null, 2) + "\n")
console.error(`turnlog: built packages/cli/dist from ${inputs.length} source files in ${Date.now() - started} ms`)
