/**
 * Runs scenarios from the command line:
 *   tsx packages/testkit/src/ScenarioMain.ts --bin <turnlog.js> <scenarios-dir> [--update] [name…]
 * Without `--update` it reports each scenario that differs from its expected
 * files (exit 1); with it, it rewrites them.
 */
import { join, resolve } from "node:path"
import { isDeepStrictEqual } from "node:util"
import * as Scenario from "./Scenario.js"
import * as ScenarioRunner from "./ScenarioRunner.js"

const args = process.argv.slice(2)
const binAt = args.indexOf("--bin")
const bin = binAt >= 0 ? args[binAt + 1] : undefined
const update = args.includes("--update")
const rest = args.filter((a, i) => a !== "--update" && i !== binAt && i !== binAt + 1)
const [dir, ...names] = rest
if (bin === undefined || dir === undefined) {
  process.stderr.write("usage: ScenarioMain --bin <turnlog.js> <scenarios-dir> [--update] [name…]\n")
  process.exit(2)
}

/** Where two line lists first differ, for a report a person can act on. */
const firstDifference = (name: string, actual: ReadonlyArray<string>, expected: ReadonlyArray<string> | undefined) => {
  if (expected === undefined) return `  ${name}: no expected file (run with --update)`
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    if (actual[i] !== expected[i]) {
      return `  ${name} line ${i + 1}:\n    expected ${expected[i] ?? "(nothing)"}\n    actual   ${actual[i] ?? "(nothing)"}`
    }
  }
  return undefined
}

let failed = 0
const dirs = names.length > 0 ? names.map((n) => join(dir, n)) : ScenarioRunner.list(dir)
for (const scenarioDir of dirs) {
  const scenario = Scenario.load(scenarioDir)
  const result = await ScenarioRunner.run(scenario, { bin: resolve(bin) })
  const same = isDeepStrictEqual(result.stdout, scenario.expected.stdout) &&
    isDeepStrictEqual(result.session, scenario.expected.session) &&
    isDeepStrictEqual(result.notes, scenario.expected.stderr) && result.exitCode === 0
  if (update) {
    ScenarioRunner.update(scenario, result)
    process.stdout.write(`${scenario.name}: ${same ? "unchanged" : "updated"} (exit ${result.exitCode})\n`)
  } else {
    if (!same) failed++
    process.stdout.write(`${scenario.name}: ${same ? "ok" : `differs (exit ${result.exitCode})`}\n`)
    for (
      const diff of [
        firstDifference("stdout.expected.jsonl", result.stdout, scenario.expected.stdout),
        firstDifference("session.expected.jsonl", result.session, scenario.expected.session),
        firstDifference("stderr.expected.txt", result.notes, scenario.expected.stderr),
      ]
    ) if (diff !== undefined) process.stdout.write(`${diff}\n`)
  }
}
process.exit(failed > 0 ? 1 : 0)
