// What the PostgreSQL `open` reads (see `internal/PgLoad.ts`). The data column
// is `json`, so the server refuses data that is not JSON: only JSON that is not
// an object can be stored where a chunk's data belongs.
import * as Postgres from "../src/Postgres.js"
import { NOT_AN_OBJECT, openReads } from "./support/openReads.js"
import { admin, describePostgres, dropSchema, freshSchema, TEST_DATABASE_URL } from "./support/postgres.js"

openReads("postgres", describePostgres, () => {
  const schema = freshSchema()
  return {
    harness: { store: Postgres.layerPostgres({ url: TEST_DATABASE_URL, schema }) },
    where: `${TEST_DATABASE_URL} (schema ${schema})`,
    run: (statement) => admin(statement(`${schema}.events`)),
    cleanup: () => dropSchema(schema).then(() => undefined),
  }
}, [
  ["data that is JSON but not an object", (events) => `UPDATE ${events} SET data = '[1]' WHERE seq = 5`, 5, NOT_AN_OBJECT],
  ["data that is a JSON string", (events) => `UPDATE ${events} SET data = '"text"' WHERE seq = 5`, 5, NOT_AN_OBJECT],
])
