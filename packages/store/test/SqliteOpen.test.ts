// What the SQLite `open` reads (see `internal/SqliteLoad.ts`): SQLite checks
// the completed steps' chunk rows itself, data that is not JSON included.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe } from "@effect/vitest"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import * as Sqlite from "../src/Sqlite.js"
import { NOT_AN_OBJECT, openReads } from "./support/openReads.js"

openReads("sqlite", describe, () => {
  const home = mkdtempSync(join(tmpdir(), "turnlog-sqlite-open-"))
  const file = join(home, "sessions.db")
  return {
    harness: { store: Sqlite.layerSqlite({ home }) },
    where: file,
    run: (statement) =>
      Effect.scoped(Effect.flatMap(
        SqliteClient.make({ filename: file }).pipe(Effect.provide(Reactivity.layer)),
        (sql) => sql.unsafe(statement("events")),
      )),
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  }
}, [
  ["data that is not JSON", (events) => `UPDATE ${events} SET data = '{"chunk":' WHERE seq = 5`, 5, "the event data is not JSON"],
  ["data that is JSON but not an object", (events) => `UPDATE ${events} SET data = '[1]' WHERE seq = 5`, 5, NOT_AN_OBJECT],
  ["data that is JSON null", (events) => `UPDATE ${events} SET data = 'null' WHERE seq = 5`, 5, NOT_AN_OBJECT],
])
