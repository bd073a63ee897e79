/**
 * The PostgreSQL store's schema, versioned in `turnlog_schema` and created or
 * migrated by turnlog itself. Every process checks the version at start; one
 * that finds it older creates or migrates under a transaction-level advisory
 * lock, so two processes starting together do not both create, and runs
 * ANALYZE after (fresh tables have no statistics for the planner). A newer
 * schema is refused as newer, as a newer log is.
 *
 * Event data is `json`, not `jsonb`: json keeps the text exactly as written
 * (jsonb refuses `\u0000`, reorders and de-duplicates keys, rewrites numbers).
 * The header's `cwd` and `title` are json strings for the same reason: text
 * cannot hold a NUL, a JSON string can. `seq` is int4, which the driver returns as a number (int8 comes back as a string).
 */
import type { SqlError } from "@effect/sql/SqlError"
import type { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"
import { type StoreError, StoreIOError, UnsupportedVersion } from "../StoreError.js"

/** The schema this build reads and writes. */
export const SCHEMA_VERSION = 2

/** `MIGRATIONS[v]` takes the schema from version v to v + 1 (version 0: nothing there yet). */
const MIGRATIONS: ReadonlyArray<ReadonlyArray<string>> = [
  [
    `CREATE TABLE turnlog_schema (version int4 NOT NULL)`,
    `CREATE TABLE sessions (
      id text PRIMARY KEY,
      version int4 NOT NULL,
      created_at text NOT NULL,
      cwd json NOT NULL,
      title json,
      updated_at text NOT NULL,
      turns int4 NOT NULL,
      first_message text,
      last_seq int4 NOT NULL
    )`,
    `CREATE TABLE events (
      session_id text NOT NULL,
      seq int4 NOT NULL,
      type text NOT NULL,
      "time" text NOT NULL,
      data json NOT NULL,
      PRIMARY KEY (session_id, seq)
    )`,
  ],
  // Leases as rows of the schema (see `PgLease`): only a role that can write the tables takes one.
  // Events belong to their session: deleting a session's row (by hand too) deletes its events,
  // and an event row of no session cannot be stored. Rows already stored are not checked (NOT VALID).
  [
    `CREATE TABLE leases (
      session_id text PRIMARY KEY,
      generation int8 NOT NULL,
      holder_pid int4 NOT NULL,
      holder_token int8 NOT NULL
    )`,
    `ALTER TABLE events ADD CONSTRAINT events_session_fk FOREIGN KEY (session_id) REFERENCES sessions (id)
      ON DELETE CASCADE NOT VALID`,
  ],
]

const versionIn = (sql: PgClient.PgClient): Effect.Effect<number, SqlError> =>
  Effect.flatMap(
    sql<{ readonly present: boolean }>`SELECT to_regclass('turnlog_schema') IS NOT NULL AS present`,
    ([row]) =>
      row?.present === true
        ? Effect.map(sql<{ readonly version: number }>`SELECT max(version) AS version FROM turnlog_schema`, ([v]) => v?.version ?? 0)
        : Effect.succeed(0),
  )

/** The schemas a `search_path` names, in order, as PostgreSQL reads them (`$user`: the role's own). */
export const schemasIn = (path: string, role: string): Array<string> =>
  Array.from(path.matchAll(/\s*("(?:[^"]|"")*"|[^,]*?)\s*(?:,|$)/g), (match) => match[1]!)
    .filter((entry) => entry !== "")
    .map((entry) => (entry.startsWith('"') ? entry.slice(1, -1).replaceAll('""', '"') : entry.toLowerCase()))
    .map((name) => (name === "$user" ? role : name))

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Where the tables go: nothing to do when the search_path (or the `schema`
 * the store was given, which is its search_path) leads to a schema this role
 * uses; otherwise its first schema, created here if it does not exist, or one
 * sentence saying why it cannot be.
 */
const ensureNamespace = (sql: PgClient.PgClient, where: string, schema: string | undefined) =>
  Effect.gen(function*() {
    const refuse = (reason: string) => Effect.fail(new StoreIOError({ path: where, operation: "prepare the schema in", cause: new Error(reason) }))
    const [row] = yield* sql<{ readonly current: string | null; readonly path: string; readonly role: string }>`SELECT
      current_schema() AS current, current_setting('search_path') AS path, current_user AS role`
    if (row === undefined || row.current !== null) return
    const target = schema ?? schemasIn(row.path, row.role)[0]
    if (target === undefined) return yield* refuse("the search_path names no schema to create the tables in")
    const [present] = yield* sql<{ readonly present: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ${target}) AS present`
    if (present?.present === true) {
      return yield* refuse(`role ${row.role} may not use schema ${quoted(target)} (it needs USAGE and CREATE on it)`)
    }
    yield* sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${quoted(target)}`).pipe(
      Effect.catchIf(
        (error) => (error.cause as { readonly code?: unknown } | undefined)?.code === "42501",
        () => refuse(`schema ${quoted(target)} does not exist and role ${row.role} may not create it: create it, or name an existing schema`),
      ),
    )
  })

/**
 * Brings the schema to `SCHEMA_VERSION` (creating the schema the tables go
 * in when it does not exist), or refuses a newer one. `where` names the database in errors.
 */
export const ensureSchema = (
  sql: PgClient.PgClient,
  where: string,
  schema: string | undefined,
): Effect.Effect<void, StoreError> => {
  const newer = (found: number) => new UnsupportedVersion({ file: where, found, supported: SCHEMA_VERSION, subject: "database schema" })
  const migrate = sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtextextended('turnlog schema', 0))`
    yield* ensureNamespace(sql, where, schema)
    const found = yield* versionIn(sql)
    if (found > SCHEMA_VERSION) return yield* newer(found)
    for (let version = found; version < SCHEMA_VERSION; version++) {
      for (const statement of MIGRATIONS[version]!) yield* sql.unsafe(statement)
    }
    if (found === 0) yield* sql`INSERT INTO turnlog_schema (version) VALUES (${SCHEMA_VERSION})`
    else if (found < SCHEMA_VERSION) yield* sql`UPDATE turnlog_schema SET version = ${SCHEMA_VERSION}`
    return found < SCHEMA_VERSION
  }))
  return Effect.gen(function*() {
    // The common case (the schema is current) takes no lock.
    // A search_path naming a schema not created yet finds no table: version 0.
    const found = yield* versionIn(sql)
    if (found > SCHEMA_VERSION) return yield* newer(found)
    if (found === SCHEMA_VERSION) return
    const changed = yield* migrate
    if (changed) yield* sql`ANALYZE turnlog_schema, sessions, events, leases`
  }).pipe(
    Effect.catchTag("SqlError", (cause) => new StoreIOError({ path: where, operation: "prepare the schema in", cause: cause.cause ?? cause })),
    // A failed COMMIT arrives as a defect from withTransaction.
    Effect.catchAllDefect((cause) => new StoreIOError({ path: where, operation: "prepare the schema in", cause })),
  )
}
