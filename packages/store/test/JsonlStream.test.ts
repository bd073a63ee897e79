// The JSONL layer's streaming reads on damaged and half-written files: a
// stream refuses what `read` refuses, with the same error; a follower waits
// for a line still being written and reads it once it is whole.
import { describe, expect, it } from "@effect/vitest"
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Duration, Effect, Fiber, Schedule, Stream } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { Jsonl } from "../src/index.js"
import { type Harness, withStore } from "./support/conformance.js"
import { chunkEvent, stamped, userMessage } from "./support/fixtures.js"

const withHome = <A, E>(f: (home: string, h: Harness) => Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-stream-"))
    return f(home, { store: Jsonl.layerJsonl({ home }) }).pipe(
      Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))),
    )
  })

const turn = (from: number) => stamped(from, [{ type: "turn/start", data: {} }, userMessage("hello"), { type: "turn/end", data: { reason: "completed" } }])

const writeSession = (h: Harness) =>
  withStore(h, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/p" })
      yield* store.append(id, turn(1))
      yield* store.flush(id)
      return id
    }))

const fileOf = (home: string, id: SessionId) => join(home, "sessions", `${id}.jsonl`)

describe("jsonl: streaming reads", () => {
  it.effect("a stream fails where read fails, with the same error naming file and line; a torn tail ends it and is reported", () =>
    withHome((home, h) =>
      Effect.gen(function*() {
        const id = yield* writeSession(h)
        const file = fileOf(home, id)
        const good = readFileSync(file, "utf8")
        appendFileSync(file, '{"seq":4,"ti')
        const streamed = yield* withStore(h, (store) => Stream.runCollect(store.stream(id, 1)))
        expect(Array.from(streamed).map((e) => e.seq)).toStrictEqual([1, 2, 3])
        expect(yield* withStore(h, (store) => store.recovery(id))).toStrictEqual({ tornTail: { bytes: 12, line: 5 } })
        expect((yield* withStore(h, (store) => store.read(id))).recovery).toStrictEqual({ tornTail: { bytes: 12, line: 5 } })

        appendFileSync(file, "\n" + JSON.stringify(turn(4)[2]) + "\n")
        const fromRead = yield* Effect.flip(withStore(h, (store) => store.read(id)))
        const fromStream = yield* Effect.flip(withStore(h, (store) => Stream.runDrain(store.stream(id, 3))))
        expect(fromStream).toStrictEqual(fromRead)
        expect(fromStream.message).toBe(`${file}:5: unreadable line followed by a committed turn end (line 6)`)

        writeFileSync(file, good + '{"seq":4,"time":"t","type":"turn/pause","data":{}}\n')
        const unknown = yield* Effect.flip(withStore(h, (store) => Stream.runDrain(store.stream(id, 1))))
        expect(unknown).toStrictEqual(yield* Effect.flip(withStore(h, (store) => store.read(id))))
        expect(unknown).toMatchObject({ _tag: "UnknownEvent", file, line: 5, type: "turn/pause" })
      })
    ))

  it.live(
    "a follower waits for a line without its newline, then reads it once; a log cut below what it read is refused",
    () =>
      withHome((home, h) =>
        Effect.gen(function*() {
          const id = yield* writeSession(h)
          const file = fileOf(home, id)
          const line = JSON.stringify(chunkEvent(4))
          appendFileSync(file, line.slice(0, 20))
          yield* withStore(h, (store) =>
            Effect.gen(function*() {
              const seen: Array<number> = []
              const follower = yield* Effect.fork(
                Stream.runForEach(store.follow(id, 2), (event) => Effect.sync(() => void seen.push(event.seq))),
              )
              const until = (n: number) =>
                Effect.suspend(() => (seen.length >= n ? Effect.void : Effect.fail("waiting"))).pipe(
                  Effect.retry(Schedule.spaced(Duration.millis(20))),
                  Effect.timeout(Duration.seconds(30)),
                )
              yield* until(2)
              // Several polls over the unfinished line: nothing is read from it.
              yield* Effect.sleep(Duration.millis(800))
              expect(seen).toStrictEqual([2, 3])
              appendFileSync(file, line.slice(20))
              yield* Effect.sleep(Duration.millis(800))
              expect(seen).toStrictEqual([2, 3])
              appendFileSync(file, "\n" + JSON.stringify(chunkEvent(5)) + "\n")
              yield* until(4)
              expect(seen).toStrictEqual([2, 3, 4, 5])
              writeFileSync(file, readFileSync(file, "utf8").split("\n").slice(0, 3).join("\n") + "\n")
              const error = yield* Fiber.join(follower).pipe(Effect.flip, Effect.timeout(Duration.seconds(30)))
              expect(error).toMatchObject({ _tag: "SessionCorrupt", file, line: 7 })
              expect(error.message).toContain("shorter than the")
            }))
        })
      ),
    60_000,
  )
})
