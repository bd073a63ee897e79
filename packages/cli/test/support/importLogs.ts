/**
 * What both tiers' import tests share (`ImportAllOrNothing.test.ts` in
 * process on JSONL and SQLite, `ImportAllOrNothing.e2e.test.ts` through the
 * binary on PostgreSQL): the session logs they import, and the two cases
 * every store must pass.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect } from "vitest"
import { hasStackTrace, type Outcome } from "./turnlog.js"

export const ID = "20260101T000000-1e2e3e4e"
export const TIME = "2026-01-01T00:00:00.000Z"
export const header = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ type: "session", version: 2, id: ID, createdAt: TIME, cwd: "/work/moved", ...fields })
export const event = (seq: number, type: string, data: unknown) => JSON.stringify({ seq, time: TIME, type, data })
export const user = (seq: number, text: string) =>
  event(seq, "user/message", { message: { id: `msg_${seq}`, role: "user", content: [{ type: "text", text }], source: { kind: "user" } } })
/** `turns` completed turns; the user message of turn `bigTurn` is `bigText`. */
export const turns = (count: number, bigTurn = -1, bigText = "") =>
  Array.from({ length: count }, (_, t) => [
    event(3 * t + 1, "turn/start", {}),
    user(3 * t + 2, t === bigTurn ? bigText : `turn ${t}`),
    event(3 * t + 3, "turn/end", { reason: "completed" }),
  ]).flat()
export const log = (...lines: ReadonlyArray<string>) => lines.map((l) => `${l}\n`).join("")
/** A `turn/start` whose line nests `depth` levels deep (the event, its data, then arrays). */
export const nested = (seq: number, depth: number) =>
  `{"seq":${seq},"time":"${TIME}","type":"turn/start","data":{"x":${"[".repeat(depth - 2)}${"]".repeat(depth - 2)}}}`

export const NO_SESSIONS = "no sessions yet (start one with: turnlog run <prompt>)\n"

/** A command on the store under test. */
export type Run = (args: ReadonlyArray<string>) => Promise<Outcome>

/** An id no store serves, a relative cwd and an event nested 100,000 levels deep: one sentence each, nothing stored (`empty`). */
export const refusesUnservable = async (run: Run, empty: () => Promise<void>, files: string, storeName: string): Promise<void> => {
  const long = "a".repeat(300)
  const chars = 'letters, digits, ".", "_" and "-", not first'
  const cases: ReadonlyArray<[string, string, string]> = [
    ["dots.jsonl", log(header({ id: "../../tmp/x" }), ...turns(1)), `:1: "../../tmp/x" is not a session id (${chars})`],
    ["slash.jsonl", log(header({ id: "a/b" }), ...turns(1)), `:1: "a/b" is not a session id (${chars})`],
    ["long.jsonl", log(header({ id: long }), ...turns(1)), `:1: "${"a".repeat(40)}"… (300 characters) is not a session id (at most 200 characters)`],
    ["cwd.jsonl", log(header({ cwd: "../../.." }), ...turns(1)), `:1: the session's cwd "../../.." is not an absolute path`],
    [
      "deep.jsonl",
      log(header(), event(1, "turn/start", {}), nested(2, 100_000)),
      ":3: the line nests objects and arrays more than 1000 levels deep (a store writes at most 1000)",
    ],
  ]
  for (const [name, text, said] of cases) {
    const file = join(files, `${storeName}-${name}`)
    writeFileSync(file, text)
    const outcome = await run(["import", file])
    expect(outcome).toStrictEqual({ code: 1, stdout: "", stderr: `turnlog: ${file}${said}: nothing imported\n` })
    expect(hasStackTrace(outcome.stderr)).toBe(false)
  }
  await empty()
}

/** An event nested as deep as allowed is stored, and exported byte for byte. */
export const storesDeepest = async (run: Run, files: string, storeName: string): Promise<void> => {
  const text = log(header(), nested(1, 1000), event(2, "turn/end", { reason: "completed" }))
  const file = join(files, `${storeName}-deepest.jsonl`)
  writeFileSync(file, text)
  expect(await run(["import", file])).toStrictEqual({ code: 0, stdout: `imported session ${ID}: 2 events\n`, stderr: "" })
  const exported = await run(["export", ID])
  expect(exported.code, exported.stderr).toBe(0)
  expect(exported.stdout).toBe(text)
}
