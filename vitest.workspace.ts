// Every package is one vitest project; tests live in each package's test/ folder.
import { readdirSync } from "node:fs"
import { defineWorkspace } from "vitest/config"

const packages = readdirSync(new URL("./packages", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

export default defineWorkspace(
  packages.map((name) => ({
    test: {
      name,
      root: `packages/${name}`,
      include: ["test/**/*.test.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  })),
)
