// `turnlog view` through the real binary, on the JSONL store and on
// PostgreSQL: it serves on 127.0.0.1 to requests carrying the printed token
// only, lists the store's sessions, and shows a session's page live in a real
// browser — a turn another process runs while the page is open appears in it,
// and in the sidebar, without a reload; a turn in flight there is shown as far
// as it is written. The PostgreSQL part is skipped with one line when no
// server answers, unless TURNLOG_REQUIRE_POSTGRES is set.
import { type ChildProcess, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { request } from "node:http"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { launch, skipBrowser } from "./support/browser.js"
import { admin, schemaUrl, skipPostgres } from "./support/postgres.js"
import { BIN, cleanEnv, removeTempDirs, tempDir, textScript, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })
afterAll(removeTempDirs)

const children: Array<ChildProcess> = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGINT")
})

/** Starts `turnlog view` and resolves with the address it prints. */
const view = (home: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "--home", home, "view", ...args], { cwd: home, env: { ...cleanEnv(), ...env } })
    children.push(child)
    let out = ""
    let err = ""
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString()
      const line = /^(http:\/\/127\.0\.0\.1:\d+\/\S*)\n/.exec(out)
      if (line !== null) resolve(line[1]!)
    })
    child.stderr.on("data", (d: Buffer) => (err += d.toString()))
    child.on("exit", (code) => reject(new Error(`view exited ${code}: ${err}`)))
  })

const status = (url: string): Promise<{ readonly code: number; readonly body: string }> =>
  new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = ""
      res.on("data", (d: Buffer) => (body += d.toString()))
      res.on("end", () => resolve({ code: res.statusCode ?? 0, body }))
    }).on("error", reject).end()
  })

const SCHEMA = `turnlog_view_test_${process.pid}`
const STORES = [
  { store: "jsonl", skip: false, env: {} },
  { store: "postgres", skip: skipPostgres, env: { TURNLOG_DATABASE_URL: schemaUrl(SCHEMA) } },
] as const

for (const { env: storeEnv, skip, store } of STORES) {
  describe.skipIf(skip)(`turnlog --store ${store} view`, () => {
    const home = tempDir(`view-${store}`)
    const env = (more: Record<string, string> = {}) => ({ TURNLOG_HOME: home, ...storeEnv, ...more })
    const args = ["--store", store]
    let id: string

    beforeAll(async () => {
      if (store === "postgres") await admin(`CREATE SCHEMA ${SCHEMA}`)
    })
    afterAll(async () => {
      if (store === "postgres") await admin(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`)
    })

    it("serves nothing without its token, and lists the sessions with it", async () => {
      const first = await turnlog([...args, "run", "hello there"], {
        cwd: home,
        env: env({ TURNLOG_SCRIPTED_MODEL: textScript(home, ["general Kenobi"], "one.jsonl") }),
      })
      expect(first.code, first.stderr).toBe(0)
      id = /^turnlog: session (\S+)$/m.exec(first.stderr)![1]!
      const url = await view(home, args, env())
      const { origin, pathname, searchParams } = new URL(url)
      expect(pathname).toBe("/")
      expect(searchParams.get("token")).toMatch(/^[\w-]{32}$/)
      for (const path of ["/", `/s/${id}`, `/s/${id}/events`]) {
        expect(await status(`${origin}${path}`)).toEqual({ code: 403, body: "forbidden: this address needs the token turnlog view printed\n" })
        expect((await status(`${origin}${path}?token=wrong`)).code).toBe(403)
      }
      const list = await status(url)
      expect(list.code).toBe(200)
      expect(list.body).toContain(`<a href="/s/${id}?token=${searchParams.get("token")}">${id}</a>`)
      expect(list.body).toContain("<td>hello there</td>")
      expect(await status(`${origin}/s/20990101T000000-00000000?token=${searchParams.get("token")}`)).toEqual({
        code: 404,
        body: expect.stringContaining("20990101T000000-00000000"),
      })
    })

    it.skipIf(skipBrowser)("shows a turn another process appends while the page is open", async () => {
      const url = await view(home, [...args, id], env())
      expect(new URL(url).pathname).toBe(`/s/${id}`)
      const { close, context } = await launch()
      try {
        const requests: Array<string> = []
        context.on("request", (r) => requests.push(new URL(r.url()).origin))
        const page = await context.newPage()
        await page.goto(url)
        expect(await page.locator("section.turn").count()).toBe(1)
        expect(await page.locator("#turn-1 .item.assistant").innerText()).toContain("general Kenobi")

        const second = await turnlog([...args, "run", "--session", id, "and a second question"], {
          cwd: home,
          env: env({ TURNLOG_SCRIPTED_MODEL: textScript(home, ["a second answer"], "two.jsonl") }),
        })
        expect(second.code, second.stderr).toBe(0)
        await page.locator("#turn-2 .end").getByText("Turn 2 completed").waitFor()
        expect(await page.locator("#turn-2 .item.user").innerText()).toContain("and a second question")
        expect(await page.locator("#turn-2 .item.assistant").innerText()).toContain("a second answer")
        expect(await page.locator("#toc li").allInnerTexts()).toEqual(["1 · hello there", "2 · and a second question"])
        expect(await page.locator("#count").innerText()).toBe("2 turns")
        expect(new Set(requests)).toEqual(new Set([new URL(url).origin]))

        // A turn in flight in another process is shown as far as it is written, then as it ended.
        const script = join(home, "stall.jsonl")
        const chunks = [{ type: "block-start", index: 0, blockType: "text" }, { type: "text-delta", index: 0, text: "working on it\n" }]
        writeFileSync(script, JSON.stringify({ chunks, stall: true }) + "\n")
        const child = spawn(process.execPath, [BIN, "--home", home, ...args, "run", "--session", id, "take your time"], {
          cwd: home,
          env: { ...cleanEnv(), ...env({ TURNLOG_SCRIPTED_MODEL: script }) },
        })
        const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
        try {
          await page.locator("#turn-3 .end").getByText("Turn 3 in progress: shown as it is written").waitFor()
          expect(await page.locator("#turn-3 .item.user").innerText()).toContain("take your time")
        } finally {
          child.kill("SIGINT")
        }
        expect(await exited).toBe(130)
        await page.locator("#turn-3 .end").getByText("Turn 3 cancelled").waitFor()
        expect(await page.locator("#turn-3 .item.assistant").innerText()).toContain("working on it")
        expect(await page.locator("#toc li").count()).toBe(3)
      } finally {
        await close()
      }
    })
  })
}
