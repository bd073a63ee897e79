/**
 * The pages `turnlog view` serves, each only to a request that carries the
 * view's token: `/` lists the store's sessions; `/s/<id>` is the session's
 * page (`export --html`'s, written as the log is read); `/s/<id>/events`
 * sends what is appended to the session from the page's last seq on, as
 * server-sent events — one `turn` event per turn that ends and, while a turn
 * is open, that turn as far as it is written (the page replaces it by
 * number). Nothing is served to a request without the token.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { timingSafeEqual } from "node:crypto"
import { Cause, Chunk, Effect, Fiber, Runtime, Stream } from "effect"
import { SessionId, type SessionLog } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import * as Pages from "../Pages.js"
import { SessionFacts } from "./Facts.js"
import * as HtmlExport from "./HtmlExport.js"
import { HtmlPage } from "./HtmlPage.js"
import { escape } from "./Markdown.js"
import { STYLE } from "./PageAssets.js"

const SESSION_ID = /^[\w.-]{1,200}$/

const sameToken = (given: string | null, token: string): boolean => {
  if (given === null) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

const HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
}

const plain = (res: ServerResponse, status: number, text: string) => {
  res.writeHead(status, { ...HEADERS, "content-type": "text/plain; charset=utf-8" })
  res.end(`${text}\n`)
}

/** Text to the response; when its buffer is full, the next piece waits for it to drain. */
const writer = (res: ServerResponse) => (text: string): Effect.Effect<void> =>
  Effect.suspend(() =>
    res.write(text) ? Effect.void : Effect.async<void>((resume) => {
      const done = () => {
        res.off("drain", done)
        res.off("close", done)
        resume(Effect.void)
      }
      res.on("drain", done)
      res.on("close", done)
    })
  )

const listPage = (sessions: ReadonlyArray<SessionStore.SessionSummary>, token: string, store: string): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>turnlog sessions</title><style>${STYLE}
main.list{margin:0 auto;max-width:1100px}table{border-collapse:collapse;width:100%;font-size:14px}
td,th{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line)}td:nth-child(-n+2){white-space:nowrap}a{color:var(--accent)}</style></head>
<body><main class="list"><h1>Sessions (${escape(store)} store)</h1>
<table><tr><th>session</th><th>updated</th><th>turns</th><th>status</th><th>directory</th><th>title</th></tr>
${
    sessions.map((s) =>
      `<tr><td><a href="/s/${encodeURIComponent(s.id)}?token=${token}">${escape(s.id)}</a></td><td>${escape(s.updatedAt)}</td><td>${s.turns}</td><td>${
        escape(s.status)
      }</td><td><code>${escape(s.cwd)}</code></td><td>${escape(s.title)}</td></tr>`
    ).join("\n")
  }
</table>${sessions.length === 0 ? "<p>No sessions yet.</p>" : ""}</main></body></html>
`

/** What is appended to a session from `from` on, as `turn` events (see the module header). */
const events = (id: SessionId, from: number, res: ServerResponse) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const header = yield* store.header(id)
    const facts = new SessionFacts()
    yield* Pages.forEach(store.stream(id, 1), (event) => facts.add(event))
    const page = new HtmlPage(header, facts.keptFrom)
    const write = writer(res)
    const send = (turn: { readonly n: number; readonly html: string }) => write(`event: turn\ndata: ${JSON.stringify(turn)}\n\n`)
    yield* write(": following\n\n")
    yield* Stream.runForEach(Stream.chunks(store.follow(id, 1)), (chunk) =>
      Effect.gen(function*() {
        const all = Chunk.toReadonlyArray(chunk)
        const seen: Array<SessionLog.SessionEvent> = []
        const fresh: Array<SessionLog.SessionEvent> = []
        for (const event of all) (event.seq < from ? seen : fresh).push(event)
        page.addTurns(seen)
        if (fresh.length === 0) return
        yield* Effect.forEach(page.addTurns(fresh), send, { discard: true })
        const open = page.openTurn()
        if (open !== undefined) yield* send(open)
      }))
  })

export interface Served {
  readonly token: string
  /** The store's name, shown on the list. */
  readonly store: string
}

/** The request handler: each request runs as its own fiber, interrupted when its client goes away. */
export const handler = (
  runtime: Runtime.Runtime<SessionStore.SessionStore>,
  served: Served,
) =>
(req: IncomingMessage, res: ServerResponse): void => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1")
  if (!sameToken(url.searchParams.get("token"), served.token)) return plain(res, 403, "forbidden: this address needs the token turnlog view printed")
  if (req.method !== "GET") return plain(res, 405, "method not allowed")
  const token = served.token
  const parts = url.pathname.split("/").filter((p) => p !== "").map(decodeURIComponent)
  let work: Effect.Effect<void, unknown, SessionStore.SessionStore>
  if (parts.length === 0) {
    work = Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const { sessions } = yield* store.list()
      res.writeHead(200, { ...HEADERS, "content-type": "text/html; charset=utf-8" })
      res.end(listPage(sessions, token, served.store))
    })
  } else if (parts[0] === "s" && parts.length >= 2 && SESSION_ID.test(parts[1]!)) {
    const id = SessionId.make(parts[1]!)
    if (parts.length === 2) {
      work = Effect.gen(function*() {
        // Read once before answering: an unknown or unreadable session is an error page, not half a page.
        yield* SessionStore.SessionStore.pipe(Effect.flatMap((store) => store.header(id)))
        res.writeHead(200, { ...HEADERS, "content-type": "text/html; charset=utf-8" })
        yield* HtmlExport.writePage(id, served.store, writer(res), `/s/${encodeURIComponent(id)}/events?token=${token}`)
        res.end()
      })
    } else if (parts.length === 3 && parts[2] === "events") {
      const from = Number(url.searchParams.get("from") ?? "1")
      work = Effect.gen(function*() {
        res.writeHead(200, { ...HEADERS, "content-type": "text/event-stream; charset=utf-8" })
        yield* events(id, Number.isInteger(from) && from > 0 ? from : 1, res)
      })
    } else {
      return plain(res, 404, "not found")
    }
  } else {
    return plain(res, 404, "not found")
  }
  const fiber = Runtime.runFork(runtime)(work.pipe(
    Effect.catchAllCause((cause) =>
      Effect.sync(() => {
        const error = Cause.squash(cause) as { readonly message?: unknown }
        if (!res.headersSent) plain(res, 404, typeof error?.message === "string" ? error.message : "cannot be read")
        else res.end()
      })
    ),
  ))
  res.on("close", () => {
    Runtime.runFork(runtime)(Fiber.interrupt(fiber))
  })
}
