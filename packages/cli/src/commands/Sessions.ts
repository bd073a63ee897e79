/**
 * `turnlog sessions`: the stored sessions, newest first, each with its status:
 * `idle`, `running` (a turn in flight in a live process) or `interrupted` (a
 * process stopped mid-turn; continuing the session closes that turn).
 */
import { Effect } from "effect"
import { SessionStore } from "@turnlog/store"
import { CommandFailed } from "../CliError.js"
import * as StoreLayers from "../StoreLayers.js"
import { json, note, out } from "../Output.js"
import type { Settings } from "../Settings.js"
import { visibleInLine } from "../Visible.js"

const pad = (text: string, width: number) => text.padEnd(width)

export const render = (sessions: ReadonlyArray<SessionStore.SessionSummary>): string => {
  if (sessions.length === 0) return "no sessions yet (start one with: turnlog run <prompt>)\n"
  // Made visible before the columns are measured, so an escaped title keeps its row aligned.
  const rows = sessions.map((s) => [s.id, s.updatedAt.replace(/\.\d+Z$/, "Z"), String(s.turns), s.status, s.cwd, s.title].map(visibleInLine))
  const header = ["ID", "UPDATED", "TURNS", "STATUS", "CWD", "TITLE"]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  return [header, ...rows]
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : pad(cell, widths[i]!))).join("  "))
    .join("\n") + "\n"
}

/**
 * Lists the readable sessions; each one that cannot be read is named on
 * stderr with why, and then the command fails (exit 1), having hidden nothing.
 */
export const sessions = (settings: Settings, options: { readonly json: boolean }) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const { sessions: all, unreadable } = yield* store.list().pipe(
      Effect.mapError((e) => new CommandFailed({ message: e.message })),
    )
    yield* options.json ? json(all) : out(render(all))
    if (unreadable.length > 0) {
      for (const { error, id } of unreadable) yield* note(`session ${id} cannot be read: ${error.message}`)
      return yield* new CommandFailed({ message: `${unreadable.length} session(s) cannot be read (see: turnlog doctor --all)` })
    }
  }).pipe(Effect.provide(StoreLayers.readStoreLayer(settings)))
