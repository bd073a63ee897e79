/**
 * The selector the command line uses to build the configured store. Each
 * layer has one name, in its own module: `Jsonl.layerJsonl` (the embedded
 * default), `Sqlite.layerSqlite`, `Memory.layerMemory`, and
 * `Postgres.layerPostgres` for sessions that several machines write in turn.
 */
import { homedir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { layerJsonl } from "./Jsonl.js"
import type { PostgresOptions } from "./Postgres.js"
import type { SessionStore } from "./SessionStore.js"
import { type StoreError, StoreIOError } from "./StoreError.js"

// The SQLite and PostgreSQL layers live in their own entries
// (`@turnlog/store/Sqlite`, `@turnlog/store/Postgres`): their drivers are
// optional peer dependencies, so nothing here imports one until its store is
// chosen.

export type StoreKind = "jsonl" | "sqlite" | "postgres"

export interface StoreConfig {
  readonly kind: StoreKind
  /** `$TURNLOG_HOME`. */
  readonly home: string
  /** The PostgreSQL store's database (`kind: "postgres"` only). */
  readonly database?: PostgresOptions
}

/** `$TURNLOG_HOME`, else `~/.turnlog`. */
export const defaultHome = (env: NodeJS.ProcessEnv = process.env): string =>
  env.TURNLOG_HOME !== undefined && env.TURNLOG_HOME !== "" ? env.TURNLOG_HOME : join(homedir(), ".turnlog")

export const layer = (config: StoreConfig): Layer.Layer<SessionStore, StoreError> => {
  switch (config.kind) {
    case "jsonl":
      return layerJsonl({ home: config.home })
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
        }).pipe(Effect.map((sqlite) => sqlite.layerSqlite({ home: config.home }))),
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
        }).pipe(Effect.map((postgres) => postgres.layerPostgres(database))),
      )
    }
  }
}
