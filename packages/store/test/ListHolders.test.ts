// `list` with many interrupted sessions asks the layer for the live lease
// holders once (one query in the databases), not once per open turn; a layer
// that can only answer per session is asked per session, as before.
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { type Backend, makeCore } from "../src/internal/Core.js"
import { POLL } from "../src/internal/Streaming.js"
import type { SessionSummary } from "../src/SessionStore.js"
import type { Holder } from "../src/StoreError.js"

const SESSIONS = 5000
const ids = Array.from({ length: SESSIONS }, (_, i) => `20260101T000000-${String(i).padStart(8, "0")}` as SessionId)
const summaries: Array<SessionSummary> = ids.map((id, i) => ({
  id,
  cwd: "/p",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: `2026-01-01T00:00:00.${String(i % 1000).padStart(3, "0")}Z`,
  turns: 1,
  title: "t",
  status: i === 0 ? "idle" : "interrupted",
}))
const other: Holder = { pid: 4242, host: "elsewhere" }

const backend = (asked: { holderOf: number; holders: number }, batch: boolean): Backend => ({
  acquire: () => Effect.dieMessage("not written"),
  load: () => Effect.dieMessage("not loaded"),
  list: () => Effect.succeed({ sessions: summaries, unreadable: [] }),
  holderOf: (id) =>
    Effect.sync(() => {
      asked.holderOf++
      return id === ids[1] ? other : undefined
    }),
  ...(batch
    ? {
      holders: () =>
        Effect.sync(() => {
          asked.holders++
          return new Map([[ids[1]!, other]])
        }),
    }
    : {}),
  streaming: { header: () => Effect.dieMessage("no header"), tail: () => Effect.dieMessage("no tail"), pollInterval: POLL },
})

const statuses = (listed: ReadonlyArray<SessionSummary>) => {
  const counts: Record<string, number> = {}
  for (const s of listed) counts[s.status] = (counts[s.status] ?? 0) + 1
  return counts
}

it.scoped(`${SESSIONS} sessions, all but one with an open turn: one ask for the holders, one session running`, () =>
  Effect.gen(function*() {
    const asked = { holderOf: 0, holders: 0 }
    const store = yield* makeCore(backend(asked, true))
    const listed = yield* store.list()
    expect(asked).toStrictEqual({ holderOf: 0, holders: 1 })
    expect(statuses(listed.sessions)).toStrictEqual({ idle: 1, running: 1, interrupted: SESSIONS - 2 })
    expect(listed.sessions.find((s) => s.status === "running")!.id).toBe(ids[1])
  }))

it.scoped("a layer without the one-pass ask is asked per open turn, with the same statuses", () =>
  Effect.gen(function*() {
    const asked = { holderOf: 0, holders: 0 }
    const store = yield* makeCore(backend(asked, false))
    const listed = yield* store.list()
    expect(asked).toStrictEqual({ holderOf: SESSIONS - 1, holders: 0 })
    expect(statuses(listed.sessions)).toStrictEqual({ idle: 1, running: 1, interrupted: SESSIONS - 2 })
  }))
