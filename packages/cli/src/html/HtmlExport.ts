/**
 * `turnlog export [<id>] --html`: the session as one HTML page (`HtmlPage`),
 * from any store, in two streamed passes — the first reads the whole log (a
 * damaged log fails there, before anything is written) and sums the header's
 * figures; the second writes the page a piece at a time as the turns end.
 * Neither holds more than a turn, so memory does not grow with the session.
 */
import { Effect } from "effect"
import type { SessionId } from "@turnlog/protocol"
import { SessionStore, type StoreError } from "@turnlog/store"
import * as Pages from "../Pages.js"
import { VERSION } from "../Version.js"
import { SessionFacts } from "./Facts.js"
import { head, HtmlPage } from "./HtmlPage.js"

/** Text is handed to the writer in pieces of about this many characters. */
const PIECE = 1 << 20

export const writePage = <E>(
  id: SessionId,
  storeKind: string,
  write: (text: string) => Effect.Effect<void, E>,
  /** Served by `view`: where the page asks for what is appended after it. */
  live?: string,
): Effect.Effect<void, E | StoreError.StoreError, SessionStore.SessionStore> =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const header = yield* store.header(id)
    // One pass finds what read would report and the session's facts for the page's head.
    const facts = new SessionFacts()
    const recovery = yield* store.recovery(id, (event) => facts.add(event))
    const page = new HtmlPage(header, facts.keptFrom)
    let text = head({ header, facts, store: storeKind, version: VERSION, live: live !== undefined })
    yield* Pages.forEachPage(store.stream(id, 1), (events) => {
      text += page.add(events)
      if (text.length < PIECE) return Effect.void
      const piece = text
      text = ""
      return write(piece)
    })
    yield* write(text + page.finish(recovery, live))
  })
