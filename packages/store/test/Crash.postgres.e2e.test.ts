import { crashTest } from "./support/crashTest.js"
import { describePostgres, freshSchema, pgHarness } from "./support/postgres.js"

// Each kill costs a child start (and a connection); 20 kills, a fifth of them while the child loads and recovers.
describePostgres("postgres", () => {
  crashTest("postgres", 20, () => {
    const schema = freshSchema()
    return { home: schema, harness: pgHarness(schema) }
  })
})
