// `turnlog export --html` through the real binary, opened in a real browser
// (headless chromium): the turns, the sidebar, the toggles, the filters,
// search, j/k, and the cut/degrade/refusal/compaction marks are in the DOM; a
// session whose model answered with `<script>` and `<img onerror>` runs
// nothing (no flag set, no dialog, no policy violation); no request leaves
// the page. Screenshots of the export (light and dark) are kept in
// test/.artifacts/ (not committed). `-o file` writes what stdout would get.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { SessionLog } from "@turnlog/protocol"
import { LogFormat } from "@turnlog/store"
import { launch, skipBrowser } from "./support/browser.js"
import * as Fixture from "./support/htmlSession.js"
import { removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })
afterAll(removeTempDirs)

const ID = "20260101T100000-0a1b2c3d"

/** The page's globals, as far as the test reads them (the cli's programs are compiled without the DOM library). */
interface PageGlobals {
  readonly __pwned?: unknown
  readonly document: { readonly body: unknown; getElementById(id: string): { readonly textContent: string | null } | null }
  getComputedStyle(element: unknown): { readonly backgroundColor: string; readonly marginLeft: string }
}
const ARTIFACTS = new URL("./.artifacts/", import.meta.url)

/** The fixture's four turns, then a fifth with nothing to mark. */
const sessionEvents = (): Array<SessionLog.SessionEvent> => {
  const events = Fixture.events()
  const next = events.length + 1
  const time = "2026-01-01T10:01:00.000Z"
  const message = (id: string, role: "user" | "assistant", text: string) => ({
    id,
    role,
    content: [{ type: "text", text }],
    source: role === "user" ? { kind: "user" } : { kind: "model", provider: "anthropic", model: "claude-sonnet-4-5" },
  })
  const plain = [
    { type: "turn/start", data: {} },
    { type: "user/message", data: { message: message("u5", "user", "Thanks") } },
    { type: "request/start", data: { provider: "anthropic", model: "claude-sonnet-4-5", step: 1, attempt: 1 } },
    { type: "assistant/message", data: { message: message("a6", "assistant", "You are welcome."), finish: { kind: "stop" } } },
    { type: "turn/end", data: { reason: "completed" } },
  ]
  return [...events, ...plain.map((e, i) => ({ ...e, seq: next + i, time }) as SessionLog.SessionEvent)]
}

let home: string
let file: string
let stdoutPage: string

beforeAll(async () => {
  home = tempDir("html")
  mkdirSync(join(home, "sessions"), { recursive: true })
  writeFileSync(join(home, "sessions", `${ID}.jsonl`), LogFormat.encodeHeader(Fixture.header(ID)) + LogFormat.encodeEvents(sessionEvents()))
  file = join(home, "session.html")
  const written = await turnlog(["--home", home, "export", ID, "--html", "-o", file], { cwd: home })
  expect(written.code, written.stderr).toBe(0)
  expect(written.stdout).toBe("")
  const printed = await turnlog(["--home", home, "export", ID, "--html"], { cwd: home })
  expect(printed.code, printed.stderr).toBe(0)
  stdoutPage = printed.stdout
})

describe("export --html -o", () => {
  it("writes to the file exactly what stdout gets", () => {
    expect(readFileSync(file, "utf8")).toBe(stdoutPage)
    expect(stdoutPage.startsWith("<!doctype html>\n")).toBe(true)
    expect(stdoutPage.endsWith("</body></html>\n")).toBe(true)
  })

  it("leaves the file as it was when the export fails", async () => {
    const kept = join(home, "kept.html")
    writeFileSync(kept, "before")
    const failed = await turnlog(["--home", home, "export", "20990101T000000-00000000", "--html", "-o", kept], { cwd: home })
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain("20990101T000000-00000000")
    expect(readFileSync(kept, "utf8")).toBe("before")
    const absent = join(home, "absent.html")
    expect((await turnlog(["--home", home, "export", "20990101T000000-00000000", "--html", "-o", absent], { cwd: home })).code).toBe(1)
    expect(existsSync(absent)).toBe(false)
  })

  it("writes the log (without --html) as export prints it", async () => {
    const jsonl = join(home, "session.jsonl")
    const written = await turnlog(["--home", home, "export", ID, "-o", jsonl], { cwd: home })
    expect(written.code, written.stderr).toBe(0)
    expect(readFileSync(jsonl, "utf8")).toBe(readFileSync(join(home, "sessions", `${ID}.jsonl`), "utf8"))
  })
})

describe.skipIf(skipBrowser)("an HTML export in chromium", () => {
  it("shows the turns and marks, runs nothing from the session and requests nothing", async () => {
    const { close, context } = await launch()
    try {
      const requests: Array<string> = []
      const dialogs: Array<string> = []
      const messages: Array<string> = []
      context.on("request", (request) => requests.push(request.url()))
      const page = await context.newPage()
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message())
        void dialog.dismiss()
      })
      page.on("console", (message) => messages.push(message.text()))
      page.on("pageerror", (error) => messages.push(`error: ${error.message}`))
      const url = pathToFileURL(file).href
      await page.goto(url)

      expect(await page.locator("section.turn").count()).toBe(5)
      expect(await page.locator("#toc li").allInnerTexts()).toEqual([
        "1 · Say <b>hello</b> <script>window.__pwned = 4</script> · tool error compacted",
        "2 · Write out.txt · cut compacted",
        "3 · Which is the source of truth? · degraded compaction",
        "4 · Go on · refused retried",
        "5 · Thanks",
      ])
      expect(await page.locator("#count").innerText()).toBe("5 turns")
      expect(await page.locator("h1").innerText()).toBe("Say <b>hello</b> <script>window.__pwned = 4</script>")
      mkdirSync(ARTIFACTS, { recursive: true })
      await page.screenshot({ path: new URL("html-export.png", ARTIFACTS).pathname })

      // What the model answered is on the page as text, and none of it ran.
      const answer = page.locator("#turn-1 .item.assistant > .md").first()
      expect(await answer.innerText()).toContain('Here: <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2">')
      expect(await page.locator("main img, main script, main iframe").count()).toBe(0)
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined()
      expect(dialogs).toEqual([])

      // The marks only turnlog knows.
      expect(await page.locator("#turn-2 .item.mark.cut").innerText()).toContain(
        "Message a3 stopped at max tokens. Dropped, never run: write_file. The raw finish chunk's envelope had 2 block entries; the stored one has one per kept block.",
      )
      expect(await page.locator("#turn-2 .end").innerText()).toBe(
        "Turn 2 stopped at the output limit (max tokens); the tool call it was making (write_file) was dropped, not run · 2026-01-01 10:00:16Z",
      )
      expect(await page.locator("#turn-3 .item.mark.degrade").innerText()).toBe(
        `INVALID_REPLAY_STATE\n\nMessage a4 (anthropic/claude-sonnet-4-5) is sent as provider-neutral content: ${Fixture.LEGACY_REASON}`,
      )
      expect(await page.locator("#turn-3 .item.mark.compaction p").first().innerText()).toBe(
        "The history before event 20 was summarised by anthropic/claude-sonnet-4-5: about 12,000 → 800 tokens. Requests start from this summary:",
      )
      expect(await page.locator("#turn-4 .item.mark.refusal").innerText()).toContain(Fixture.REFUSAL_REASON)

      // Folds and toggles: reasoning and long results start folded.
      const reasoning = page.locator("details.reasoning")
      expect(await reasoning.evaluateAll((all) => all.map((d) => (d as unknown as { open: boolean }).open))).toEqual([false, false])
      expect(await page.locator("details.reasoning .md").first().isVisible()).toBe(false)
      await page.click("#thinking")
      expect(await reasoning.evaluateAll((all) => all.map((d) => (d as unknown as { open: boolean }).open))).toEqual([true, true])
      expect(await page.locator("details.reasoning .md").first().isVisible()).toBe(true)
      const fold = page.locator("details.fold").first()
      expect(await fold.locator("summary").innerText()).toBe("result folded: 6.0 KB, 300 lines")
      expect(await fold.locator("pre").isVisible()).toBe(false)
      await fold.locator("summary").click()
      expect(await fold.locator("pre").isVisible()).toBe(true)

      // Filters.
      await page.check("input[data-filter=notools]")
      expect(await page.locator(".item.tool").evaluateAll((all) => all.filter((e) => (e as unknown as { offsetParent: unknown }).offsetParent !== null).length))
        .toBe(0)
      await page.uncheck("input[data-filter=notools]")
      await page.check("input[data-filter=prompts]")
      expect(await page.locator("#turn-1 .item.user").isVisible()).toBe(true)
      expect(
        await page.locator("#turn-1 .item.assistant").evaluateAll((all) => all.map((e) => (e as unknown as { offsetParent: unknown }).offsetParent !== null)),
      ).toEqual([false, false])
      await page.uncheck("input[data-filter=prompts]")
      await page.check("input[data-filter=problems]")
      expect(await page.locator("#turn-5").isVisible()).toBe(false)
      expect(await page.locator("#turn-4").isVisible()).toBe(true)
      await page.uncheck("input[data-filter=problems]")

      // Search, then j/k between the turns it left.
      await page.fill("#search", "DURABLE LOG")
      await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.getElementById("count")!.textContent === "1 of 5 turns")
      expect(await page.locator("section.turn:not(.hidden)").evaluateAll((all) => all.map((e) => e.id))).toEqual(["turn-3"])
      await page.press("#search", "Escape")
      await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.getElementById("count")!.textContent === "5 turns")
      await page.keyboard.press("j")
      await page.keyboard.press("j")
      expect(await page.locator("section.turn.current").evaluateAll((all) => all.map((e) => e.id))).toEqual(["turn-2"])
      await page.keyboard.press("k")
      expect(await page.locator("section.turn.current").evaluateAll((all) => all.map((e) => e.id))).toEqual(["turn-1"])
      expect(await page.locator("#toc li.current").innerText()).toContain("1 · Say")

      // Printed: no sidebar, the turns across the page.
      await page.emulateMedia({ media: "print" })
      expect(await page.locator("#side").isVisible()).toBe(false)
      expect(await page.locator("main").evaluate((m) => (globalThis as unknown as PageGlobals).getComputedStyle(m).marginLeft)).toBe("0px")
      await page.emulateMedia({ media: "screen" })

      // The page asked for nothing but itself, and the policy had nothing to refuse.
      expect(requests).toEqual([url])
      expect(messages).toEqual([])
    } finally {
      await close()
    }
  })

  it("reads in the dark", async () => {
    const { close, context } = await launch({ colorScheme: "dark" })
    try {
      const page = await context.newPage()
      await page.goto(pathToFileURL(file).href)
      const background = await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).getComputedStyle((globalThis as unknown as PageGlobals).document.body).backgroundColor
      )
      expect(background).toBe("rgb(23, 24, 26)")
      mkdirSync(ARTIFACTS, { recursive: true })
      await page.screenshot({ path: new URL("html-export-dark.png", ARTIFACTS).pathname })
    } finally {
      await close()
    }
  })
})
