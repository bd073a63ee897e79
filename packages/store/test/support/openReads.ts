// What `open` reads of a session a database layer holds (SQLite, PostgreSQL),
// the same for both: the raw chunk rows of completed steps are checked for
// integrity only (seq in order, data that is a JSON object) and not returned;
// the step in flight is read with its data and decoded in full; a damaged
// row is refused by `open` in the words `read` refuses it in, and nothing is
// changed by the refused open. `read` still decodes every row.
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import { type Harness, withStore } from "./conformance.js"
import { chunkEvent, inFlightTurn, streamedTurn } from "./fixtures.js"

/** One database for one test. */
export interface Database {
  readonly harness: Harness
  /** The database as the store's errors name it. */
  readonly where: string
  /** Runs a statement behind the store's back, as another program would; it is given the events table's name. */
  readonly run: (statement: (events: string) => string) => Effect.Effect<ReadonlyArray<unknown>, unknown>
  readonly cleanup: () => void | Promise<void>
}

/** The turns every test stores: two completed steps (chunks at seqs 4–6 and 11–12), then one in flight (chunks 17–18). */
const session = [...streamedTurn(1, "first", 3), ...streamedTurn(8, "second", 2), ...inFlightTurn(14, "third", 2)]

const seqTypes = (events: ReadonlyArray<SessionLog.SessionEvent>) => events.map((e) => [e.seq, e.type])

/** What `open` of `session` returns: its turn in flight closed at seq 19. */
const opened = [
  [1, "turn/start"],
  [2, "user/message"],
  [3, "request/start"],
  [7, "turn/end"],
  [8, "turn/start"],
  [9, "user/message"],
  [10, "request/start"],
  [13, "turn/end"],
  [14, "turn/start"],
  [15, "user/message"],
  [16, "request/start"],
  [17, "assistant/chunk"],
  [18, "assistant/chunk"],
  [19, "turn/end"],
]

const store = (h: Harness, events: ReadonlyArray<SessionLog.SessionEvent>) =>
  withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/p" })
      for (let i = 0; i < events.length; i += 1000) {
        yield* store.append(id, events.slice(i, i + 1000))
        yield* store.flush(id)
      }
      return id
    }))

const eventCount = (db: Database) => Effect.map(db.run((events) => `SELECT CAST(count(*) AS INTEGER) AS n FROM ${events}`), ([row]) => row)

/** Why a chunk whose data is JSON but not an object is refused: the schema's words, cut short. */
export const NOT_AN_OBJECT = 'not a valid assistant/chunk event: data: Expected { readonly chunk: { readonly type: "block-start"; ' +
  'readonly index: int & nonNegative; readonly blockType: "text"…'

/** A damage done to a completed step's chunk (seq 5), the seq refused, and the reason `read` and `open` give. */
export type Damage = readonly [name: string, statement: (events: string) => string, seq: number, reason: string]

export const openReads = (
  name: string,
  describeIt: (name: string, f: () => void) => void,
  makeDatabase: () => Database,
  damages: ReadonlyArray<Damage>,
) =>
  describeIt(`${name}: open reads what continuing needs`, () => {
    const withDatabase = <A, E>(f: (db: Database) => Effect.Effect<A, E>) =>
      Effect.suspend(() => {
        const db = makeDatabase()
        return f(db).pipe(Effect.ensuring(Effect.promise(async () => db.cleanup())))
      })

    it.effect("completed steps' chunks are left out; the step in flight is decoded and its turn closed; read returns all", () =>
      withDatabase((db) =>
        Effect.gen(function*() {
          const id = yield* store(db.harness, session)
          const read = yield* withStore(db.harness, (store) => store.read(id))
          expect(read.events).toStrictEqual(session)
          const open = yield* withStore(db.harness, (store) => store.open(id))
          expect(seqTypes(open.events)).toStrictEqual(opened)
          expect(open.events.slice(11, 13)).toStrictEqual([chunkEvent(17), chunkEvent(18)])
          expect(open.recovery.closedTurn?.map((e) => e.seq)).toStrictEqual([19])
        })
      ))

    it.effect("a completed step's chunk is checked for integrity only: data that is an object but not a chunk is read's to refuse", () =>
      withDatabase((db) =>
        Effect.gen(function*() {
          const id = yield* store(db.harness, session)
          yield* db.run((events) => `UPDATE ${events} SET data = '{"chunk":{"type":"text-delta"}}' WHERE seq = 5`)
          const refused = yield* Effect.flip(withStore(db.harness, (store) => store.read(id)))
          expect(refused.message).toBe(`${db.where}: session ${id}, event 5: not a valid assistant/chunk event: data.chunk.index: is missing`)
          const open = yield* withStore(db.harness, (store) => store.open(id))
          expect(seqTypes(open.events)).toStrictEqual(opened)
        })
      ))

    it.effect.each(
      [
        ...damages,
        ["its row missing", (events: string) => `DELETE FROM ${events} WHERE seq = 5`, 6, "expected event seq 5, found 6"],
      ] as const,
    )("a completed step's chunk with %s is refused by open as read refuses it; nothing is changed", ([_name, statement, seq, reason]) =>
      withDatabase((db) =>
        Effect.gen(function*() {
          const id = yield* store(db.harness, session)
          yield* db.run(statement)
          const before = yield* eventCount(db)
          const read = yield* Effect.flip(withStore(db.harness, (store) =>
            store.read(id)))
          const open = yield* Effect.flip(withStore(db.harness, (store) => store.open(id)))
          expect(open).toMatchObject({ _tag: "SessionCorrupt", file: db.where, sessionId: id, line: seq, detail: reason })
          expect(open.message).toBe(`${db.where}: session ${id}, event ${seq}: ${reason}`)
          expect(read.message).toBe(open.message)
          // The open that was refused closed no turn.
          expect(yield* eventCount(db)).toStrictEqual(before)
        })
      ))

    it.effect("the step in flight is decoded in full: a chunk of it that is not a chunk is refused", () =>
      withDatabase((db) =>
        Effect.gen(function*() {
          const id = yield* store(db.harness, session)
          yield* db.run((events) =>
            `UPDATE ${events} SET data = '{"chunk":{"type":"text-delta"}}' WHERE seq = 18`
          )
          const open = yield* Effect.flip(withStore(db.harness, (store) => store.open(id)))
          expect(open.message).toBe(`${db.where}: session ${id}, event 18: not a valid assistant/chunk event: data.chunk.index: is missing`)
          expect(yield* eventCount(db)).toStrictEqual({ n: 18 })
        })
      ))

    it.effect("across pages: completed chunks left out, the step in flight decoded whole; damage at a page boundary refused", () =>
      withDatabase((db) =>
        Effect.gen(function*() {
          // Chunks 4–6003 completed; the step in flight streams 6008–11007, across the 10,000 boundary of a 5,000-row page.
          const events = [...streamedTurn(1, "long", 6000), ...inFlightTurn(6005, "longer", 5000)]
          const id = yield* store(db.harness, events)
          const open = yield* withStore(db.harness, (store) =>
            store.open(id))
          expect(open.events.map((e) => e.seq)).toStrictEqual([
            1,
            2,
            3,
            6004,
            6005,
            6006,
            6007,
            ...Array.from({ length: 5001 }, (_, i) => 6008 + i),
          ])
          expect(open.events.slice(7, 5007)).toStrictEqual(events.slice(6007))
          // A completed step's chunk missing where the second page starts.
          yield* db.run((events) => `DELETE FROM ${events} WHERE seq = 5001`)
          const refused = yield* Effect.flip(withStore(db.harness, (store) => store.open(id)))
          expect(refused.message).toBe(`${db.where}: session ${id}, event 5002: expected event seq 5001, found 5002`)
        })
      ), 120_000)
  })
