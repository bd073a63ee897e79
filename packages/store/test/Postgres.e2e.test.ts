import { conformance } from "./support/conformance.js"
import { describePostgres, pgHarness } from "./support/postgres.js"

describePostgres("postgres", () => {
  conformance("postgres", () => pgHarness())
})
