/**
 * The selector the command line uses to build the configured store. Each
 * layer has one name, in its own module: `Jsonl.layerJsonl` (the embedded
 * default), `Sqlite.layerSqlite`, `Memory.layerMemory`.
 */
import { homedir } from "node:os"
import { join } from "node:path"
import type { Layer } from "effect"
import { layerJsonl } from "./Jsonl.js"
import type { SessionStore } from "./SessionStore.js"
import { layerSqlite } from "./Sqlite.js"
import type { StoreError } from "./StoreError.js"

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
      return layerSqlite({ home: config.home })
  }
}
