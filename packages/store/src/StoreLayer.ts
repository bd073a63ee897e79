/**
 * The selector the command line uses to build the configured store. Each
 * layer has one name, in its own module: `Jsonl.layerJsonl` (the embedded
 * default), `Sqlite.layerSqlite`, `Memory.layerMemory`, and
 * `Postgres.layerPostgres` for sessions that several machines write in turn.
 */
import { homedir } from "node:os"
import { join } from "node:path"
import { Layer } from "effect"
import { layerJsonl } from "./Jsonl.js"
import { layerPostgres, type PostgresOptions } from "./Postgres.js"
import type { SessionStore } from "./SessionStore.js"
import { layerSqlite } from "./Sqlite.js"
import { type StoreError, StoreIOError } from "./StoreError.js"

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
      return layerSqlite({ home: config.home })
    case "postgres":
      return config.database === undefined
        ? Layer.fail(
          new StoreIOError({
            path: "the database",
            operation: "connect to",
            cause: new Error("no database URL: set TURNLOG_DATABASE_URL or database.url in the config"),
          }),
        )
        : layerPostgres(config.database)
  }
}
