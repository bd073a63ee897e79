// Which tier a vitest run is: the fast tier (`npm test`, every in-process
// `*.test.ts`), the slow tier (`npm run test:e2e`, TURNLOG_TIER=e2e, every
// `*.e2e.test.ts`) or both (TURNLOG_TIER=all). Naming an e2e file on the
// command line runs it without setting the tier.
const namesE2e = process.argv.some((arg) => arg.includes(".e2e."))

export const tier = process.env.TURNLOG_TIER ?? (namesE2e ? "all" : "fast")

const tiers: Record<string, { include: Array<string>; exclude: Array<string> }> = {
  fast: { include: ["test/**/*.test.ts"], exclude: ["test/**/*.e2e.test.ts"] },
  e2e: { include: ["test/**/*.e2e.test.ts"], exclude: [] },
  all: { include: ["test/**/*.test.ts"], exclude: [] },
}

const found = tiers[tier]
if (found === undefined) throw new Error(`TURNLOG_TIER is ${tier}; use fast, e2e or all`)
export const selected = found
