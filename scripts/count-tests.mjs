// Prints "N passed, N failed[, N skipped]" from a vitest JSON report.
// Exits 1 when the report is missing, counts no test, or counts a failure.
import { readFileSync } from "node:fs"

const file = process.argv[2]
let report
try {
  report = JSON.parse(readFileSync(file, "utf8"))
} catch (error) {
  console.log(`no test report at ${file}: ${error.message} (type-check or vitest did not complete)`)
  console.log("0 passed, 1 failed")
  process.exit(1)
}
const passed = report.numPassedTests ?? 0
// A test file that failed to load has no failed test of its own: count it once.
const brokenFiles = (report.testResults ?? []).filter((file) =>
  file.status === "failed" && !(file.assertionResults ?? []).some((test) => test.status === "failed")
).length
const failed = (report.numFailedTests ?? 0) + brokenFiles
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
