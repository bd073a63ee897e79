/**
 * Picking a session to resume (`turnlog chat --resume`, `/resume`): the
 * sessions of this directory, newest first, each with its title, age, turns
 * and status, as `turnlog sessions` knows them.
 */
import type { SelectItem } from "@mariozechner/pi-tui"
import { Effect } from "effect"
import type { SessionStore } from "@turnlog/store"
import { CommandFailed } from "../CliError.js"
import { visible } from "../Visible.js"

/** How long ago `iso` was, in the largest whole unit. */
export const age = (iso: string, now: number): string => {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (seconds < 60) return "just now"
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours} h ago`
  return `${Math.floor(hours / 24)} days ago`
}

export const items = (sessions: ReadonlyArray<SessionStore.SessionSummary>, now: number): Array<SelectItem> =>
  sessions.map((s) => ({
    value: s.id,
    label: visible(s.title === "" ? "(untitled)" : s.title).slice(0, 60),
    description: `${age(s.updatedAt, now)} · ${s.turns} turn${s.turns === 1 ? "" : "s"} · ${s.status}`,
  }))

/** The sessions of `cwd`, newest first. */
export const here = (store: SessionStore.Service, cwd: string) =>
  store.list().pipe(
    Effect.mapError((e) => new CommandFailed({ message: e.message })),
    Effect.map(({ sessions }) => sessions.filter((s) => s.cwd === cwd)),
  )
