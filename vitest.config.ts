// The options of a whole run; the projects are in vitest.workspace.ts.
//
// The fast tier's files share their worker's module cache (no isolation):
// loading effect and the packages once per worker rather than once per file
// is most of that tier's time. Vitest still gives each package its own
// workers. A fast-tier file must therefore leave process-wide state (cwd,
// environment, globals, timers) as it found it; the slow tier's files, which
// start processes and servers, keep a fresh worker each.
import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"
import { tier } from "./vitest.tier.js"

const fast = tier === "fast"

export default defineConfig({
  test: {
    poolOptions: { forks: { isolate: !fast } },
    // At least two workers for the fast tier, whose files wait on the disk
    // and timers as much as they compute; Vitest's default on two cores is one.
    ...(fast ? { maxWorkers: Math.max(2, availableParallelism() - 1) } : {}),
  },
})
