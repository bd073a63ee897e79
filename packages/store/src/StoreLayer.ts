/**
 * The selector the command line uses to build the configured store. Each
 * layer has one name, in its own module: `Jsonl.layerJsonl` (the embedded
 * default), `Sqlite.layerSqlite`, `Memory.layerMemory`.
 */
import { homedir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { layerJsonl } from "./Jsonl.js"
import type { SessionStore } from "./SessionStore.js"
import { type StoreError, StoreIOError } from "./StoreError.js"

// The SQLite layer lives in its own entry (`@turnlog/store/Sqlite`): its driver
// (better-sqlite3, @effect/sql-sqlite-node) is an optional peer dependency, so
// nothing here imports it until a SQLite store is chosen.

export type StoreKind = "jsonl" | "sqlite"

export interface StoreConfig {
  readonly kind: StoreKind
  /** `$TURNLOG_HOME`. */
  readonly home: string
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
  }
}
