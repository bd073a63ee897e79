// Every package is one vitest project; tests live in each package's test/ folder.
//
// Two tiers (see vitest.tier.ts). The fast tier (`npm test`) is every
// `*.test.ts` that runs in process; the slow tier (`npm run test:e2e`) is
// every `*.e2e.test.ts`: child processes, signals, crashes, PostgreSQL,
// packed packages, browsers. How the files share workers is in vitest.config.ts.
//
// The workspace's packages resolve through their "@turnlog/source" export
// condition, so tests run the TypeScript sources, never a package's dist/.
// Child processes the tests start (`node --import tsx …`, the `turnlog`
// launcher) get the same condition through NODE_OPTIONS.
import { readdirSync } from "node:fs"
import { defaultClientConditions, defaultServerConditions } from "vite"
import { defineWorkspace } from "vitest/config"
import { selected } from "./vitest.tier.js"

const SOURCE = "@turnlog/source"

const packages = readdirSync(new URL("./packages", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

const inherited = process.env.NODE_OPTIONS ?? ""
const nodeOptions = inherited.includes(`--conditions=${SOURCE}`)
  ? inherited
  : `${inherited} --conditions=${SOURCE}`.trim()

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
