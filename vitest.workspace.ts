// Every package is one vitest project; tests live in each package's test/ folder.
//
// Two tiers. The fast tier (`npm test`) is every `*.test.ts` that runs in
// process; the slow tier (`npm run test:e2e`, TURNLOG_TIER=e2e) is every
// `*.e2e.test.ts`: child processes, signals, crashes, PostgreSQL, packed
// packages, browsers. TURNLOG_TIER=all runs both.
//
// The workspace's packages resolve through their "@turnlog/source" export
// condition, so tests run the TypeScript sources, never a package's dist/.
// Child processes the tests start (`node --import tsx …`, the `turnlog`
// launcher) get the same condition through NODE_OPTIONS.
import { readdirSync } from "node:fs"
import { defaultClientConditions, defaultServerConditions } from "vite"
import { defineWorkspace } from "vitest/config"

const SOURCE = "@turnlog/source"

const packages = readdirSync(new URL("./packages", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

const inherited = process.env.NODE_OPTIONS ?? ""
const nodeOptions = inherited.includes(`--conditions=${SOURCE}`)
  ? inherited
  : `${inherited} --conditions=${SOURCE}`.trim()

// Naming an e2e file on the command line runs it without setting the tier.
const namesE2e = process.argv.some((arg) => arg.includes(".e2e."))
const tier = process.env.TURNLOG_TIER ?? (namesE2e ? "all" : "fast")
const tiers: Record<string, { include: Array<string>; exclude: Array<string> }> = {
  fast: { include: ["test/**/*.test.ts"], exclude: ["test/**/*.e2e.test.ts"] },
  e2e: { include: ["test/**/*.e2e.test.ts"], exclude: [] },
  all: { include: ["test/**/*.test.ts"], exclude: [] },
}
const selected = tiers[tier]
if (selected === undefined) throw new Error(`TURNLOG_TIER is ${tier}; use fast, e2e or all`)

// examples/: the packed packages installed into an app (see examples/test).
const projects = [...packages.map((name) => ({ name, root: `packages/${name}` })), {
  name: "examples",
  root: "examples",
}]

export default defineWorkspace(
  projects.map(({ name, root }) => ({
    resolve: { conditions: [SOURCE, ...defaultClientConditions] },
    ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions], externalConditions: [SOURCE] } },
    test: {
      name,
      root,
      include: selected.include,
      exclude: ["**/node_modules/**", ...selected.exclude],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      env: { NODE_OPTIONS: nodeOptions },
    },
  })),
)
