// The PostgreSQL server the cli tests use: where it is, a statement run as
// its administrator, and whether the tests run. Without a server they are
// skipped with one line on stderr, unless TURNLOG_REQUIRE_POSTGRES is set (as
// `.ci/run` does), so a broken layer cannot pass as "skipped".
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Redacted } from "effect"

export const DATABASE_URL = process.env.TURNLOG_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** Runs one statement on its own connection. */
export const admin = <A extends object = Record<string, unknown>>(statement: string, params: ReadonlyArray<unknown> = []) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(
    PgClient.make({ url: Redacted.make(DATABASE_URL), connectTimeout: Duration.seconds(3), maxConnections: 1 }).pipe(
      Effect.provide(Reactivity.layer),
    ),
    (sql) => sql.unsafe<A>(statement, params),
  )))

const unreachable = await admin("SELECT 1").then(() => undefined, (error: unknown) => String(error))
const required = (process.env.TURNLOG_REQUIRE_POSTGRES ?? "") !== ""
if (unreachable !== undefined && !required) {
  process.stderr.write(
    `PostgreSQL tests skipped: no server at ${DATABASE_URL} (${unreachable}); set TURNLOG_REQUIRE_POSTGRES=1 to fail instead\n`,
  )
}

/** Whether the PostgreSQL tests are skipped here (no server, and not required). */
export const skipPostgres = unreachable !== undefined && !required

/** The URL with `schema` as its search_path: a test file's own tables. */
export const schemaUrl = (schema: string) => `${DATABASE_URL}${DATABASE_URL.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}`
