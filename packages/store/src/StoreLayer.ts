/**
 * The selector the command line uses to build the configured store. Each
 * layer has one name, in its own module: `Jsonl.layerJsonl` (the embedded
 * default), `Sqlite.layerSqlite`, `Memory.layerMemory`, and
 * `Postgres.layerPostgres` for sessions that several machines write in turn.
 */
import { homedir } from "node:os"
import { join } from "node:path"
import { type Duration, Effect, Layer } from "effect"
import { layerJsonl } from "./Jsonl.js"
import type { SessionStore } from "./SessionStore.js"
import { type StoreError, StoreIOError } from "./StoreError.js"

// The SQLite and PostgreSQL layers live in their own entries
// (`@turnlog/store/Sqlite`, `@turnlog/store/Postgres`): their drivers are
// optional peer dependencies, so nothing here imports one until its store is
// chosen.

/** The PostgreSQL store's connection (`Postgres.layerPostgres`). */
export interface PostgresOptions {
  /** `postgres://user[:password]@host[:port]/database[?…]`. */
  readonly url: string
  /** A schema of its own for the store's tables (made if missing); default: the URL's search_path. */
  readonly schema?: string
  /**
   * The lease timeout, default 30 s: how long a write (or taking a lease) may wait for the
   * server before it fails (a write with `LeaseLost`), and how long the server keeps this
   * store's leases once it hears nothing from it (see `internal/PgLeaseConnection`).
   */
  readonly writeTimeout?: Duration.DurationInput
  /** How long connecting may take; default 10 s. */
  readonly connectTimeout?: Duration.DurationInput
  /** The program named as the holder of this store's leases (its connections' `application_name`). */
  readonly program?: string
}

export type StoreKind = "jsonl" | "sqlite" | "postgres"

export interface StoreConfig {
  readonly kind: StoreKind
  /** `$TURNLOG_HOME`. */
  readonly home: string
  /** The PostgreSQL store's database (`kind: "postgres"` only). */
  readonly database?: PostgresOptions
  /** The program named as the holder of this store's leases (`Holder.program`, e.g. `turnlog acp`). */
  readonly program?: string
}

/** `$TURNLOG_HOME`, else `~/.turnlog`. */
export const defaultHome = (env: NodeJS.ProcessEnv = process.env): string =>
  env.TURNLOG_HOME !== undefined && env.TURNLOG_HOME !== "" ? env.TURNLOG_HOME : join(homedir(), ".turnlog")

export const layer = (config: StoreConfig): Layer.Layer<SessionStore, StoreError> => {
  const named = config.program === undefined ? {} : { program: config.program }
  switch (config.kind) {
    case "jsonl":
      return layerJsonl({ home: config.home, ...named })
    case "sqlite":
      return Layer.unwrapEffect(
        Effect.tryPromise({
          try: () => import("./Sqlite.js"),
          catch: (cause) =>
            new StoreIOError({
              path: config.home,
              operation: "load the SQLite store's driver (install better-sqlite3 and @effect/sql-sqlite-node) for",
              cause,
            }),
        }).pipe(Effect.map((sqlite) => sqlite.layerSqlite({ home: config.home, ...named }))),
      )
    case "postgres": {
      const database = config.database
      if (database === undefined) {
        return Layer.fail(
          new StoreIOError({
            path: "the database",
            operation: "connect to",
            cause: new Error("no database URL: set TURNLOG_DATABASE_URL or database.url in the config"),
          }),
        )
      }
      return Layer.unwrapEffect(
        Effect.tryPromise({
          try: () => import("./Postgres.js"),
          catch: (cause) =>
            new StoreIOError({
              path: "the database",
              operation: "load the PostgreSQL store's driver (install @effect/sql and @effect/sql-pg) for",
              cause,
            }),
        }).pipe(Effect.map((postgres) => postgres.layerPostgres({ ...database, ...named }))),
      )
    }
  }
}
