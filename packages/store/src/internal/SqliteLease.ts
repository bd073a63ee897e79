/**
 * The SQLite layer's one writer per session: a `leases` row naming the
 * holder (host, pid, and the program when it named one) and its token. A free lease is taken by inserting the
 * row; a dead holder's row is replaced only if it still names that very
 * holder and token, so two takers cannot both win.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { Holder } from "../StoreError.js"
import { holderOf, isLive, type Lease, thisHost } from "./Liveness.js"

interface LeaseRow {
  readonly pid: number
  readonly token: string
  /** Absent from a database still at schema version 1, which only a reader opens. */
  readonly host?: string
  /** NULL when the holder named no program; absent before schema version 3. */
  readonly program?: string | null
}

const leaseOf = (row: LeaseRow): Lease => ({
  host: row.host ?? "",
  pid: row.pid,
  token: row.token,
  ...(typeof row.program === "string" ? { program: row.program } : {}),
})

const current = (sql: SqlClient, id: string): Effect.Effect<Lease | undefined, SqlError> =>
  Effect.map(sql<LeaseRow>`SELECT * FROM leases WHERE session_id = ${id}`, ([row]) => (row === undefined ? undefined : leaseOf(row)))

/**
 * Takes the lease of `id` for this process with `token` (naming `program`,
 * when given): `true`, or the live holder that has it.
 */
export const take = (sql: SqlClient, id: string, token: string, program?: string): Effect.Effect<true | Holder, SqlError> =>
  Effect.gen(function*() {
    const named = program ?? null
    for (let attempt = 0; attempt < 5; attempt++) {
      const inserted = yield* sql`INSERT INTO leases (session_id, host, pid, token, program)
        VALUES (${id}, ${thisHost}, ${process.pid}, ${token}, ${named})
        ON CONFLICT (session_id) DO NOTHING RETURNING token`
      if (inserted.length === 1) return true
      const holder = yield* current(sql, id)
      if (holder === undefined) continue
      if (isLive(holder)) return holderOf(holder)
      // The holder is gone: replace exactly that holder, so two takers cannot both win.
      const taken = yield* sql`UPDATE leases SET host = ${thisHost}, pid = ${process.pid}, token = ${token}, program = ${named}
        WHERE session_id = ${id} AND host = ${holder.host} AND pid = ${holder.pid} AND token = ${holder.token}
        RETURNING token`
      if (taken.length === 1) return true
    }
    const holder = yield* current(sql, id)
    return holder === undefined ? { host: thisHost, pid: 0 } : holderOf(holder)
  })

/** Gives up the lease this process took with `token` (if it still has it). */
export const give = (sql: SqlClient, id: string, token: string): Effect.Effect<void, SqlError> =>
  Effect.asVoid(sql`DELETE FROM leases WHERE session_id = ${id} AND token = ${token}`)

/** The live process holding the lease of `id`, if any. */
export const liveHolder = (sql: SqlClient, id: string): Effect.Effect<Holder | undefined, SqlError> =>
  Effect.map(current(sql, id), (holder) => (holder !== undefined && isLive(holder) ? holderOf(holder) : undefined))

/** The live processes holding leases, by session: one query, each holder checked as `liveHolder` checks it. */
export const liveHolders = (sql: SqlClient): Effect.Effect<ReadonlyMap<string, Holder>, SqlError> =>
  Effect.map(sql<LeaseRow & { readonly session_id: string }>`SELECT * FROM leases`, (rows) => {
    const live = new Map<string, Holder>()
    for (const row of rows) {
      const holder = leaseOf(row)
      if (isLive(holder)) live.set(row.session_id, holderOf(holder))
    }
    return live
  })
