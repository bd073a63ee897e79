/**
 * A transaction on the SQLite layer's connection whose every outcome is a
 * typed error. `@effect/sql`'s `withTransaction` turns a failed COMMIT or
 * ROLLBACK into a defect, and a full disk fails exactly at COMMIT (WAL mode
 * writes a transaction's pages then): the flush died instead of failing, and
 * the connection was left inside the transaction. Here a failed COMMIT is a
 * `SqlError` like any other statement's, and the transaction is rolled back
 * so the same write can be retried once the disk has room again.
 *
 * The layer runs whatever writes alone on its connection (see `Sqlite.ts`), so
 * nothing else runs between BEGIN and COMMIT.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit } from "effect"

export const transaction = (sql: SqlClient) => {
  // After a failed COMMIT SQLite may or may not have rolled back already
  // ("no transaction is active" is then expected): what matters is that none is left open.
  const rollback = sql`ROLLBACK`.pipe(Effect.ignore)
  return <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(sql`BEGIN IMMEDIATE`, Effect.exit(restore(body))).pipe(
        Effect.flatMap((exit): Effect.Effect<A, E | SqlError> =>
          Exit.isSuccess(exit)
            ? sql`COMMIT`.pipe(Effect.as(exit.value), Effect.tapError(() => rollback))
            : Effect.zipRight(rollback, exit)
        ),
      )
    )
}
