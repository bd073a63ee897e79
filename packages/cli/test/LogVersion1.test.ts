// A log written by the build before batched raw chunks (format version 1,
// one `assistant/chunk` event per chunk): this build shows it exactly as that
// build did, builds the same next request from it, and continues it in
// version-1 events, so the build that wrote it can still read it.
import { copyFileSync, mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { History } from "@turnlog/history"
import type { Message, SessionId } from "@turnlog/protocol"
import { Jsonl, SessionStore } from "@turnlog/store"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir, textScript } from "./support/turnlog.js"

const ID = "20261201T184503-8145a6aa"
const FIXTURES = fileURLToPath(new URL("./fixtures/log-v1/", import.meta.url))
const ORIGINAL = readFileSync(join(FIXTURES, `${ID}.jsonl`), "utf8")

afterAll(removeTempDirs)

/** A home holding the version-1 session, as its build left it. */
const homeWithFixture = () => {
  const home = tempDir("v1")
  mkdirSync(join(home, "sessions"))
  copyFileSync(join(FIXTURES, `${ID}.jsonl`), join(home, "sessions", `${ID}.jsonl`))
  return home
}

const linesOf = (text: string) => text.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; data: any })

describe("a version-1 log", () => {
  it("is shown exactly as the build that wrote it showed it, as text and as JSON", async () => {
    const home = homeWithFixture()
    const env = { TURNLOG_HOME: home }
    const text = await turnlog(["show", ID], { cwd: home, env })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toBe(readFileSync(join(FIXTURES, "show.expected.txt"), "utf8"))
    const json = await turnlog(["show", "--json", ID], { cwd: home, env })
    expect(json.code, json.stderr).toBe(0)
    expect(json.stdout).toBe(readFileSync(join(FIXTURES, "show.expected.json"), "utf8"))
    expect(readFileSync(join(home, "sessions", `${ID}.jsonl`), "utf8")).toBe(ORIGINAL)
  })

  it("gives the next request the messages its durable events hold, replay state included", async () => {
    const home = homeWithFixture()
    const loaded = await Effect.runPromise(
      Effect.scoped(Effect.flatMap(SessionStore.SessionStore, (store) => store.read(ID as SessionId))).pipe(
        Effect.provide(Jsonl.layerJsonl({ home })),
      ),
    )
    expect(loaded.header.version).toBe(1)
    expect(loaded.events).toHaveLength(48)
    const durable: Array<Message> = linesOf(ORIGINAL).flatMap((line) =>
      line.type === "user/message" || line.type === "assistant/message" || line.type === "tool/result" ? [line.data.message] : []
    )
    expect(durable.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"])
    expect(History.fromEvents(loaded.events)).toEqual(durable)
  })

  it("is continued in version-1 events: the old lines untouched, one assistant/chunk per chunk, shown with the new turn", async () => {
    const home = homeWithFixture()
    const script = textScript(home, ["No, the review is on Thursday and the release on Friday."])
    const env = { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: script }
    const run = await turnlog(["run", "--session", ID, "Is the review on Friday too?"], { cwd: home, env })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe("No, the review is on Thursday and the release on Friday.\n")
    const after = readFileSync(join(home, "sessions", `${ID}.jsonl`), "utf8")
    expect(after.startsWith(ORIGINAL)).toBe(true)
    const added = linesOf(after.slice(ORIGINAL.length))
    expect(linesOf(after)[0]!.type === "session" && JSON.parse(after.split("\n")[0]!).version).toBe(1)
    const chunks = added.filter((line) => line.type === "assistant/chunk").length
    expect(added.map((line) => line.type)).toEqual([
      "turn/start",
      "user/message",
      "request/start",
      ...Array<string>(chunks).fill("assistant/chunk"),
      "assistant/message",
      "turn/end",
    ])
    // block-start, the deltas, block-end, usage, finish: every chunk its own line.
    expect(chunks).toBeGreaterThanOrEqual(5)
    const shown = await turnlog(["show", ID], { cwd: home, env })
    expect(shown.stdout.replace(/(system prompt: sha256:)[0-9a-f]{12}…/, "$1…")).toBe(
      readFileSync(join(FIXTURES, "show.expected.txt"), "utf8") +
        "\n── turn 3\nuser:\n  Is the review on Friday too?\nsystem prompt: sha256:… (default)\nassistant:\n  No, the review is on Thursday and the release on Friday.\nturn 3 completed\n",
    )
  })
})
