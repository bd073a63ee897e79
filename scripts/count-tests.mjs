// Prints one "N passed, N failed[, N skipped]" line for one or more vitest JSON
// reports (the fast tier and the slow tier), added together.
// Exits 1 when a report is missing, no test was counted, or a test failed.
import { readFileSync } from "node:fs"

const files = process.argv.slice(2)
let passed = 0
let failed = 0
let skipped = 0
for (const file of files) {
  let report
  try {
    report = JSON.parse(readFileSync(file, "utf8"))
  } catch (error) {
    console.log(`no test report at ${file}: ${error.message} (type-check or vitest did not complete)`)
    failed += 1
    continue
  }
  passed += report.numPassedTests ?? 0
  // A test file that failed to load has no failed test of its own: count it once.
  const brokenFiles = (report.testResults ?? []).filter((entry) =>
    entry.status === "failed" && !(entry.assertionResults ?? []).some((test) => test.status === "failed")
  ).length
  failed += (report.numFailedTests ?? 0) + brokenFiles
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
}
if (files.length === 0) failed += 1
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
