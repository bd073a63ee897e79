/**
 * The SQLite layer's schema, versioned. Migration n takes a database at
 * version n - 1 to version n; the version is `PRAGMA user_version` (0: a
 * database turnlog never wrote). A newer version is refused as newer.
 *
 * Reading never migrates (a read changes nothing, an empty file stays empty):
 * `versionOf` only looks. The first write of a store runs `migrate`, which
 * re-reads the version inside its own write transaction, so two processes
 * migrating at once apply each migration once.
 *
 * To add a column: append a migration, and read and write the column in
 * `SqliteRows.ts`.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { UnsupportedVersion } from "../StoreError.js"

const MIGRATIONS: ReadonlyArray<ReadonlyArray<string>> = [
  // 1: the header and what `list` shows, the events, the one writer's lease.
  [
    `CREATE TABLE IF NOT EXISTS sessions (
      id TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      cwd TEXT NOT NULL,
      title TEXT,
      updated_at TEXT NOT NULL,
      turns INTEGER NOT NULL,
      first_message TEXT
    )`,
    `CREATE TABLE IF NOT EXISTS events (
      session_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      time TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (session_id, seq)
    )`,
    `CREATE TABLE IF NOT EXISTS leases (
      session_id TEXT PRIMARY KEY,
      pid INTEGER NOT NULL,
      token TEXT NOT NULL
    )`,
  ],
  // 2: a lease's holder is named by its host as well as its pid ("" in rows
  // written before: they were taken on this machine).
  [`ALTER TABLE leases ADD COLUMN host TEXT NOT NULL DEFAULT ''`],
  // 3: the program holding a lease, when it named itself (NULL in rows
  // written before); and the session row becomes the catalog `list` reads:
  // `summary_seq` is the seq of the last event its counters (turns,
  // first_message) have seen, so a reader can tell a row behind its events;
  // the counters are recounted from the events once, here (first_message has
  // been kept with its event since 1).
  [
    `ALTER TABLE leases ADD COLUMN program TEXT`,
    `ALTER TABLE sessions ADD COLUMN summary_seq INTEGER`,
    `UPDATE sessions SET
      turns = (SELECT count(*) FROM events e WHERE e.session_id = sessions.id AND e.type = 'turn/start'),
      summary_seq = (SELECT coalesce(max(seq), 0) FROM events e WHERE e.session_id = sessions.id)`,
  ],
]

/** The database schema this build reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length

/** The schema version of the database, refusing a newer one. 0: nothing written yet. */
export const versionOf = (sql: SqlClient, file: string): Effect.Effect<number, SqlError | UnsupportedVersion> =>
  Effect.flatMap(sql<{ readonly user_version: number }>`PRAGMA user_version`, ([row]) => {
    const found = row?.user_version ?? 0
    return found > SCHEMA_VERSION
      ? Effect.fail(new UnsupportedVersion({ file, found, supported: SCHEMA_VERSION, subject: "database schema" }))
      : Effect.succeed(found)
  })

/**
 * Brings the database to `SCHEMA_VERSION` inside `inTransaction` (a write
 * transaction), applying only the migrations it lacks.
 */
export const migrate = (
  sql: SqlClient,
  file: string,
  inTransaction: <A, E>(body: Effect.Effect<A, E>) => Effect.Effect<A, E | SqlError>,
): Effect.Effect<void, SqlError | UnsupportedVersion> =>
  Effect.gen(function*() {
    if ((yield* versionOf(sql, file)) === SCHEMA_VERSION) return
    // A write-ahead log is a property of the file: set once, by the first writer, outside a transaction.
    yield* sql`PRAGMA journal_mode = WAL`
    yield* inTransaction(Effect.gen(function*() {
      const found = yield* versionOf(sql, file)
      for (let version = found + 1; version <= SCHEMA_VERSION; version++) {
        for (const statement of MIGRATIONS[version - 1]!) yield* sql.unsafe(statement)
      }
      if (found < SCHEMA_VERSION) yield* sql.unsafe(`PRAGMA user_version = ${SCHEMA_VERSION}`)
    }))
  })
