// Every package is one vitest project; tests live in each package's test/ folder.
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
const nodeOptions = inherited.includes(`--conditions=${SOURCE}`) ? inherited : `${inherited} --conditions=${SOURCE}`.trim()

export default defineWorkspace(
  packages.map((name) => ({
    resolve: { conditions: [SOURCE, ...defaultClientConditions] },
    ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions], externalConditions: [SOURCE] } },
    test: {
      name,
      root: `packages/${name}`,
      include: ["test/**/*.test.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      env: { NODE_OPTIONS: nodeOptions },
    },
  })),
)
