// The JSONL index when it is missing or stale, as the lookup of `run
// --continue` meets it (`list` of one directory, then `open` of its latest
// session): every log the lookup had to read gets its entry back, exactly as
// a writer writes it, and each log is read once in the whole command.
import { describe, expect, it } from "@effect/vitest"
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { Jsonl } from "../src/index.js"
import { type FileIo, nodeIo } from "../src/internal/FileIo.js"
import { serialize } from "../src/internal/JsonlFile.js"
import { SessionStore } from "../src/SessionStore.js"
import { type Harness, withStore } from "./support/conformance.js"
import { streamedTurn } from "./support/fixtures.js"

/** File io that counts, per log, the passes that read it from its first byte (and, for `opens`, the times it was opened). */
const countingIo = () => {
  const paths = new Map<number, string>()
  const reads = new Map<string, number>()
  const opens: Array<string> = []
  const io: FileIo = {
    ...nodeIo,
    openSync: ((path: string, flags?: unknown, mode?: unknown) => {
      const fd = (nodeIo.openSync as (...args: Array<unknown>) => number)(path, flags, mode)
      paths.set(fd, String(path))
      if (String(path).endsWith(".jsonl")) opens.push(String(path).slice(String(path).lastIndexOf("/") + 1, -".jsonl".length))
      return fd
    }) as FileIo["openSync"],
    readSync: ((fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null) => {
      const path = paths.get(fd)
      if (position === 0 && path?.endsWith(".jsonl")) reads.set(path, (reads.get(path) ?? 0) + 1)
      return nodeIo.readSync(fd, buffer, offset, length, position)
    }) as FileIo["readSync"],
  }
  /** Reads so far by session id (the log's file name without `.jsonl`). */
  const counts = () => Object.fromEntries([...reads].map(([path, n]) => [path.slice(path.lastIndexOf("/") + 1, -".jsonl".length), n]))
  return { io, counts, opens, reset: () => reads.clear() }
}

const withHome = <A, E>(body: (home: string, h: Harness) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-index-rebuild-"))
    return body(home, { store: Jsonl.layerJsonl({ home }) }).pipe(
      Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))),
    )
  })

const counted = (home: string, io: FileIo): Harness => ({ store: Layer.scoped(SessionStore, Jsonl.makeJsonl({ home }, io)) })

/** A session of `turns` two-chunk turns written through the store. */
const session = (h: Harness, cwd: string, createdAt: string, turns: number) =>
  withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd, createdAt })
      for (let t = 0; t < turns; t++) yield* store.append(id, streamedTurn(1 + t * 6, `question ${t}`, 2))
      yield* store.flush(id)
      return id
    }))

const entryText = (home: string, id: string) => readFileSync(join(home, "index", `${id}.json`), "utf8")

describe("jsonl index missing or stale at a lookup", () => {
  it.effect("index/ deleted: each log is read once, the chosen one not again by open, and every entry is back as a writer wrote it", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const older = yield* session(h, "/p", "2025-01-01T00:00:00.000Z", 2)
        const latest = yield* session(h, "/p", "2025-01-01T00:00:01.000Z", 3)
        const other = yield* session(h, "/q", "2025-01-01T00:00:02.000Z", 1)
        const written = Object.fromEntries([older, latest, other].map((id) => [id, entryText(home, id)]))
        const plain = yield* withStore(h, (store) => store.open(latest))
        rmSync(join(home, "index"), { recursive: true })

        const { io, counts } = countingIo()
        const { listed, opened } = yield* withStore(counted(home, io), (store) =>
          Effect.gen(function*() {
            const listed = yield* store.list({ cwd: "/p" })
            const opened = yield* store.open(listed.sessions[0]!.id)
            return { listed, opened }
          }))
        expect(listed.sessions.map((s) => [s.id, s.turns, s.title])).toStrictEqual([
          [latest, 3, "question 0"],
          [older, 2, "question 0"],
        ])
        expect(counts()).toStrictEqual({ [older]: 1, [latest]: 1, [other]: 1 })
        expect(opened.events).toStrictEqual(plain.events)
        expect(opened.events.map((e) => e.type).filter((t) => t === "assistant/chunk")).toStrictEqual([])
        expect(readdirSync(join(home, "index")).sort()).toStrictEqual([older, latest, other].map((id) => `${id}.json`).sort())
        for (const id of [older, latest, other]) expect(entryText(home, id)).toBe(written[id])
      })
    ))

  it.effect("an entry left stale by a restore (its log grew since) is detected and rebuilt; the next list reads no log", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* session(h, "/p", "2025-01-01T00:00:00.000Z", 1)
        const stale = entryText(home, id)
        yield* withStore(h, (store) =>
          Effect.gen(function*() {
            yield* store.append(id, streamedTurn(7, "second", 2))
            yield* store.flush(id)
          }))
        const written = entryText(home, id)
        expect(written).not.toBe(stale)
        writeFileSync(join(home, "index", `${id}.json`), stale)

        const { counts, io, reset } = countingIo()
        const listed = yield* withStore(counted(home, io), (store) => store.list())
        expect(listed.sessions.map((s) => [s.id, s.turns])).toStrictEqual([[id, 2]])
        expect(counts()).toStrictEqual({ [id]: 1 })
        expect(entryText(home, id)).toBe(written)
        reset()
        expect((yield* withStore(counted(home, io), (store) => store.list())).sessions.map((s) => s.turns)).toStrictEqual([2])
        expect(counts()).toStrictEqual({})
      })
    ))

  it.effect("a log that changed between the lookup and open is read again: open never returns what list saw of an older log", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* session(h, "/p", "2025-01-01T00:00:00.000Z", 1)
        rmSync(join(home, "index"), { recursive: true })
        const { counts, io } = countingIo()
        const opened = yield* withStore(counted(home, io), (store) =>
          Effect.gen(function*() {
            yield* store.list({ cwd: "/p" })
            // Another process appends a turn in between.
            appendFileSync(join(home, "sessions", `${id}.jsonl`), serialize(streamedTurn(7, "second", 2)))
            return yield* store.open(id as SessionId)
          }))
        expect(opened.events.map((e) => e.seq)).toStrictEqual([1, 2, 3, 6, 7, 8, 9, 12])
        expect(counts()).toStrictEqual({ [id]: 2 })
      })
    ))

  it.effect("an up-to-date index answers list without a log being opened; a log changed since its entry is opened and read", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const first = yield* session(h, "/p", "2025-01-01T00:00:00.000Z", 2)
        const second = yield* session(h, "/q", "2025-01-01T00:00:01.000Z", 1)
        const { counts, io, opens } = countingIo()
        const listed = yield* withStore(counted(home, io), (store) => store.list())
        expect(listed.sessions.map((s) => [s.id, s.turns])).toStrictEqual([[second, 1], [first, 2]])
        expect([opens, counts()]).toStrictEqual([[], {}])
        // Another process appends a turn: that log's entry no longer matches it.
        appendFileSync(join(home, "sessions", `${first}.jsonl`), serialize(streamedTurn(13, "third", 2)))
        const relisted = yield* withStore(counted(home, io), (store) => store.list())
        expect(relisted.sessions.map((s) => [s.id, s.turns])).toStrictEqual([[second, 1], [first, 3]])
        expect([opens, counts()]).toStrictEqual([[first], { [first]: 1 }])
      })
    ))

  it.effect("list of one directory lists only its sessions, and names every unreadable one", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const mine = yield* session(h, "/p", "2025-01-01T00:00:00.000Z", 1)
        const theirs = yield* session(h, "/q", "2025-01-01T00:00:01.000Z", 1)
        const file = join(home, "sessions", `${theirs}.jsonl`)
        writeFileSync(file, readFileSync(file, "utf8").replace('"turn/end"', '"turn/enD"'))
        const listed = yield* withStore(h, (store) => store.list({ cwd: "/p" }))
        expect(listed.sessions.map((s) => s.id)).toStrictEqual([mine])
        expect(listed.unreadable.map((u) => [u.id, u.error.message])).toStrictEqual([
          [theirs, `${file}:7: unknown event type "turn/enD" (written by a newer turnlog?)`],
        ])
      })
    ))
})
