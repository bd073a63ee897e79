// The log format as a portable file: `encode` gives back a JSONL store's log
// byte for byte, and `decode` judges a file exactly as the JSONL reader judges
// the same bytes as a log — the same refusal, at the same line, in the same words.
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { Jsonl, LogFormat } from "../src/index.js"
import { type Harness, withStore } from "./support/conformance.js"
import { everyType, stamped } from "./support/fixtures.js"

const events = stamped(1, everyType)

/** A JSONL log written by the store itself, and what the store's read and `decode` make of `damage(text)`. */
const judged = (damage: (text: string) => Buffer | string) =>
  Effect.suspend(() => {
    const home = mkdtempSync(join(tmpdir(), "turnlog-log-format-"))
    const h: Harness = { store: Jsonl.layerJsonl({ home }) }
    return Effect.gen(function*() {
      const id: SessionId = yield* withStore(h, (store) =>
        Effect.gen(function*() {
          const id = yield* store.create({ cwd: "/p", title: "a title" })
          yield* store.append(id, events)
          yield* store.flush(id)
          return id
        }))
      const file = join(home, "sessions", `${id}.jsonl`)
      const text = readFileSync(file, "utf8")
      const bytes = damage(text)
      writeFileSync(file, bytes)
      const read = yield* withStore(h, (store) => Effect.either(store.read(id)))
      const decoded = LogFormat.decode(typeof bytes === "string" ? Buffer.from(bytes) : bytes, file)
      return { text, read, decoded }
    }).pipe(Effect.ensuring(Effect.sync(() => rmSync(home, { recursive: true, force: true }))))
  })

const lines = (text: string) => text.split("\n")

describe("LogFormat", () => {
  it.effect("encodes a session as the JSONL store wrote it, byte for byte, and decodes it back", () =>
    Effect.gen(function*() {
      const { text, read, decoded } = yield* judged((t) => t)
      const session = Either.getOrThrow(decoded)
      expect(LogFormat.encodeHeader(session.header) + LogFormat.encoder(session.header)(session.events)).toBe(text)
      const loaded = Either.getOrThrow(read)
      expect(LogFormat.encodeHeader(loaded.header) + LogFormat.encoder(loaded.header)(loaded.events)).toBe(text)
      expect(session.events).toStrictEqual(events)
    }))

  const damages: ReadonlyArray<readonly [string, (text: string) => Buffer | string]> = [
    ["a damaged line before complete events", (t: string) => lines(t).map((l, i) => (i === 3 ? l.slice(0, 20) : l)).join("\n")],
    ["a line that is not UTF-8 before complete events", (t: string) => {
      const parts = lines(t)
      return Buffer.concat([Buffer.from(parts.slice(0, 2).join("\n") + "\n"), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from(parts.slice(2).join("\n"))])
    }],
    ["a gap in seq", (t: string) => lines(t).filter((_, i) => i !== 4).join("\n")],
    ["an unknown event type", (t: string) => lines(t).map((l, i) => (i === 2 ? l.replace('"type":"user/message"', '"type":"user/shout"') : l)).join("\n")],
    ["an event of the wrong shape", (t: string) => lines(t).map((l, i) => (i === 1 ? l.replace("{}", '{"extra":') : l)).join("\n")],
    ["a newer version", (t: string) => t.replace(/"version":\d+/, '"version":99')],
    ["a header that is not one", (t: string) => t.replace('"type":"session"', '"type":"sesion"')],
  ]
  for (const [name, damage] of damages) {
    it.effect(`refuses ${name} as the JSONL reader does`, () =>
      Effect.gen(function*() {
        const { read, decoded } = yield* judged(damage)
        expect(Either.isLeft(read)).toBe(true)
        expect(Either.isLeft(decoded)).toBe(true)
        if (Either.isLeft(read) && Either.isLeft(decoded)) {
          expect({ tag: decoded.left._tag, message: decoded.left.message }).toStrictEqual({ tag: read.left._tag, message: read.left.message })
        }
      }))
  }

  it.effect("refuses a torn tail, which the JSONL reader leaves out of the session", () =>
    Effect.gen(function*() {
      const { text, read, decoded } = yield* judged((t) => t + '{"seq":99,"ti')
      const torn = lines(text).length
      expect(Either.getOrThrow(read).recovery.tornTail).toStrictEqual({ bytes: 13, line: torn })
      expect(Either.isLeft(decoded) && decoded.left.message).toMatch(
        new RegExp(`\\.jsonl:${torn}: the file ends in a torn tail \\(a write that never finished\\): it does not hold the whole session$`),
      )
    }))

  describe("refuses what no store could serve or write, naming the file and line", () => {
    const header = (fields: Record<string, unknown>) =>
      JSON.stringify({ type: "session", version: 2, id: "20260101T000000-0a0b0c0d", createdAt: "2026-01-01T00:00:00.000Z", cwd: "/p", ...fields })
    const start = `{"seq":1,"time":"2026-01-01T00:00:01.000Z","type":"turn/start","data":{}}`
    const refusal = (text: string | Buffer) => {
      const decoded = LogFormat.decode(typeof text === "string" ? Buffer.from(text) : text, "in.jsonl")
      return Either.isLeft(decoded) ? decoded.left.message : "accepted"
    }
    const chars = 'letters, digits, ".", "_" and "-", not first'

    it("an id that is not a session id", () => {
      expect(refusal(`${header({ id: "../../tmp/x" })}\n${start}\n`)).toBe(`in.jsonl:1: "../../tmp/x" is not a session id (${chars})`)
      expect(refusal(`${header({ id: "a/b" })}\n`)).toBe(`in.jsonl:1: "a/b" is not a session id (${chars})`)
      expect(refusal(`${header({ id: "x".repeat(300) })}\n`)).toBe(
        `in.jsonl:1: "${"x".repeat(40)}"… (300 characters) is not a session id (at most 200 characters)`,
      )
      expect(refusal(`${header({ id: "x".repeat(200) })}\n${start}\n`)).toBe("accepted")
    })

    it("a cwd that is not an absolute path", () => {
      expect(refusal(`${header({ cwd: "../../.." })}\n${start}\n`)).toBe(`in.jsonl:1: the session's cwd "../../.." is not an absolute path`)
      expect(refusal(`${header({ cwd: "" })}\n`)).toBe(`in.jsonl:1: the session's cwd "" is not an absolute path`)
    })

    it("a line nested more than 1,000 levels deep, in an event or the header", () => {
      const deep = (depth: number) => `{"seq":1,"time":"t","type":"turn/start","data":{"x":${"[".repeat(depth - 2)}${"]".repeat(depth - 2)}}}`
      const said = "the line nests objects and arrays more than 1000 levels deep (a store writes at most 1000)"
      expect(refusal(`${header({})}\n${deep(100_000)}\n`)).toBe(`in.jsonl:2: ${said}`)
      expect(refusal(`${header({})}\n${deep(1001)}\n`)).toBe(`in.jsonl:2: ${said}`)
      expect(refusal(`${header({})}\n${deep(1000)}\n`)).toBe("accepted")
      expect(refusal(`${header({ x: JSON.parse("[".repeat(1000) + "]".repeat(1000)) })}\n`)).toBe(`in.jsonl:1: ${said}`)
    })

    it("a line over 256 MiB, before it is decoded", () => {
      const big = Buffer.alloc(LogFormat.MAX_LINE_BYTES + 1, 0x78)
      expect(refusal(Buffer.concat([Buffer.from(`${header({})}\n${start}\n`), big, Buffer.from("\n")]))).toBe(
        "in.jsonl:3: the line is 268435457 bytes, more than the 256 MiB (268435456 bytes) one line of a session may take",
      )
    })
  })
})
