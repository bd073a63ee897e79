// The PostgreSQL test database: where it is, whether it answers, and a fresh
// schema per store so tests never see each other's sessions. With
// TURNLOG_REQUIRE_POSTGRES set (CI), a server that does not answer fails the
// tests; without it, only the PostgreSQL tests are skipped, with one line saying why.
import { describe } from "@effect/vitest"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Redacted } from "effect"
import * as Postgres from "../../src/Postgres.js"
import type { Harness } from "./conformance.js"

import { TEST_DATABASE_URL } from "./pgUrl.js"

export { TEST_DATABASE_URL }
export const required = (process.env.TURNLOG_REQUIRE_POSTGRES ?? "") !== ""

/** Runs statements on the test database outside any store, as an operator would. */
export const admin = <A = Record<string, unknown>>(statement: string, params: ReadonlyArray<unknown> = []) =>
  Effect.scoped(
    Effect.flatMap(
      PgClient.make({ url: Redacted.make(TEST_DATABASE_URL), connectTimeout: Duration.seconds(3), maxConnections: 1 }).pipe(
        Effect.provide(Reactivity.layer),
      ),
      (sql) => sql.unsafe<A & object>(statement, params),
    ),
  )

const unreachable: string | undefined = await Effect.runPromise(
  admin("SELECT 1").pipe(
    Effect.as(undefined),
    Effect.catchAll((error) => Effect.succeed(String((error.cause as Error | undefined)?.message ?? error.message))),
  ),
)

/** A `describe` that runs when the server answers or is required, and is skipped (said once) otherwise. */
export const describePostgres = (name: string, f: () => void) => {
  if (unreachable === undefined || required) return describe(name, f)
  process.stderr.write(
    `PostgreSQL tests skipped: no server at ${TEST_DATABASE_URL} (${unreachable}); set TURNLOG_REQUIRE_POSTGRES=1 to fail instead\n`,
  )
  return describe.skip(name, f)
}

let made = 0
/** A schema name no other test (or test process) uses. */
export const freshSchema = (): string => `turnlog_test_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`

export const dropSchema = (schema: string) => Effect.runPromise(admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))

/** A store over a schema of its own, dropped at cleanup. */
export const pgHarness = (schema = freshSchema()): Harness & { readonly schema: string } => ({
  schema,
  store: Postgres.layerPostgres({ url: TEST_DATABASE_URL, schema }),
  cleanup: () => dropSchema(schema).then(() => undefined),
})

/** The backend (server process id) holding the lease of `id` in `schema`, if any: the lease connection its row names, while it holds its token. */
export const leaseBackend = (id: string, schema: string) =>
  Effect.map(
    admin<{ readonly pid: number }>(
      `SELECT le.holder_pid AS pid FROM ${schema}.leases le JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted
         AND l.objsubid = 1 AND l.pid = le.holder_pid AND l.classid = ((le.holder_token >> 32) & 4294967295)::oid
         AND l.objid = (le.holder_token & 4294967295)::oid
       WHERE le.session_id = $1`,
      [id],
    ),
    ([row]) => row?.pid,
  )

/**
 * Ends the backend holding the lease of `id` in `schema`, as an operator's `pg_terminate_backend` would,
 * and waits until it is gone: until then it still holds the lease, and a write may rightly pass.
 */
export const terminateLease = (id: string, schema: string) =>
  Effect.flatMap(leaseBackend(id, schema), (pid) =>
    pid === undefined
      ? Effect.dieMessage(`no backend holds the lease of ${id}`)
      : Effect.as(admin("SELECT pg_terminate_backend($1, 5000)", [pid]), pid))
