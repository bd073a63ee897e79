/**
 * `turnlog doctor [<id> | --all]`: what this build makes of a stored session
 * (the latest in this directory when none is named, every one with `--all`),
 * without changing anything — for each assistant message, whether its replay
 * state replays natively, degrades (and why), or is absent; a torn tail found
 * at the end; a last turn left open; temporary files a stopped process left
 * beside the log; each message a provider refused to
 * take replay state for (`replay/degrade`, with the provider's reason) and
 * the compactions the history starts from. The same checks the read side runs
 * before a request, run ahead of time. A session that cannot be read is
 * reported and the others are still examined; the exit code is 1 when any
 * could not be read. `demo` ends with the same report. The log is streamed
 * (see `streamed`): memory follows the conversation, not the raw chunks.
 */
import { visibleInLine } from "../Visible.js"
import { Effect, Either } from "effect"
import { History } from "@turnlog/history"
import { SessionId, SessionLog } from "@turnlog/protocol"
import { OpenTurn, SessionStore } from "@turnlog/store"
import { CommandFailed, UsageError } from "../CliError.js"
import type * as AdapterChoice from "../AdapterChoice.js"
import * as StoreLayers from "../StoreLayers.js"
import { json, out } from "../Output.js"
import * as Pages from "../Pages.js"
import * as ReplayCheck from "../ReplayCheck.js"
import * as SessionIdArg from "../SessionIdArg.js"
import { Invocation, type Settings } from "../Settings.js"
import { toCommandError } from "../StoreErrors.js"
import * as TranscriptText from "../TranscriptText.js"

export type Replay = "native" | "degrades" | "no-state"

export interface MessageReport {
  readonly messageId: string
  readonly route: string
  readonly replay: Replay
  readonly reason?: string
  /** The adapter kind that wrote its replay state, when it is one of this build's. */
  readonly adapter?: AdapterChoice.Kind
}

export interface SessionReport {
  readonly id: string
  readonly cwd: string
  readonly events: number
  readonly messages: ReadonlyArray<MessageReport>
  readonly tornTail?: { readonly bytes: number; readonly line: number }
  readonly openTurn: boolean
  /** Each `replay/degrade`: the messages sent provider-neutral since, because the provider said `reason`. */
  readonly refused: ReadonlyArray<{
    readonly seq: number
    readonly messageIds: ReadonlyArray<string>
    readonly route: string
    readonly reason: string
  }>
  /** How many `context/compaction` events, and the seq the latest keeps history from. */
  readonly compactions: number
  readonly keptFromSeq?: number
  /** The live process writing the session, when the open turn is in flight there (not left by a dead one). */
  readonly writer?: number
  /** The system prompt of the last request that recorded one, and how many times it changed before it. */
  readonly systemPrompt?: { readonly hash: string; readonly sources: ReadonlyArray<string>; readonly changes: number }
  /** Temporary files a stopped process left beside the log (removed when the session is next opened). */
  readonly leftovers?: ReadonlyArray<{ readonly file: string; readonly bytes: number }>
}

/**
 * A session as doctor reads it, streamed: every event counted, only those
 * reconstruction uses kept. Raw chunks (most of a log) are counted and let
 * go — history is built from messages — so memory grows with the
 * conversation, not with everything the provider streamed.
 */
const streamed = (store: SessionStore.Service, id: SessionId) =>
  Effect.gen(function*() {
    const recovery = yield* store.recovery(id)
    const header = yield* store.header(id)
    const events: Array<SessionLog.SessionEvent> = []
    let count = 0
    // Each request's batches decoded together: a block-end referring to batches that are not there is damage.
    const chunks = new SessionLog.RequestChunks()
    let broken: string | undefined
    yield* Pages.forEach(store.stream(id, 1), (event) => {
      if (!SessionLog.isRawChunk(event.type)) events.push(event)
      else if (broken === undefined) broken = Either.match(chunks.next(event), { onLeft: (why) => why, onRight: () => undefined })
      if (event.type === "request/start") chunks.next(event)
      count++
    })
    if (broken !== undefined) return yield* new CommandFailed({ message: `its raw chunks do not decode: ${broken}` })
    return diagnose({ header, events, recovery }, count)
  })

/** The report of a session; `eventCount` when `session.events` leaves raw chunks out (see `streamed`). */
export const diagnose = (session: SessionStore.LoadedSession, eventCount = session.events.length): SessionReport => {
  const messages: Array<MessageReport> = []
  for (const message of History.fromEvents(session.events)) {
    if (message.role !== "assistant") continue
    const route = History.routeOf(message)
    if (message.source.kind !== "model" || message.source.replayState === undefined) {
      messages.push({ messageId: message.id, route, replay: "no-state" })
      continue
    }
    // Judged by the codec of the adapter that wrote it: under that adapter it replays natively or it never does.
    const reason = ReplayCheck.ownReason(message)
    const adapter = ReplayCheck.writtenBy(message)
    const by = adapter === undefined ? {} : { adapter }
    messages.push(
      reason === undefined
        ? { messageId: message.id, route, replay: "native", ...by }
        : { messageId: message.id, route, replay: "degrades", reason, ...by },
    )
  }
  const refused: Array<SessionReport["refused"][number]> = []
  let compactions = 0
  let keptFromSeq: number | undefined
  let system: SessionLog.SystemRecord | undefined
  let changes = 0
  for (const event of session.events) {
    if (event.type === "request/start" && event.data.system !== undefined) {
      if (system !== undefined && system.hash !== event.data.system.hash) changes++
      system = event.data.system
    }
    if (event.type === "replay/degrade") {
      const { messageIds, model, provider, reason } = event.data
      refused.push({ seq: event.seq, messageIds, route: `${provider}/${model}`, reason })
    } else if (event.type === "context/compaction") {
      compactions++
      keptFromSeq = event.data.firstKeptSeq
    }
  }
  const torn = session.recovery.tornTail
  return {
    id: session.header.id,
    cwd: session.header.cwd,
    events: eventCount,
    messages,
    ...(torn === undefined ? {} : { tornTail: { bytes: torn.bytes, line: torn.line } }),
    openTurn: OpenTurn.openTurnStart(session.events) >= 0,
    refused,
    compactions,
    ...(keptFromSeq === undefined ? {} : { keptFromSeq }),
    ...(session.recovery.openTurn?.holder === undefined ? {} : { writer: session.recovery.openTurn.holder.pid }),
    ...(system === undefined ? {} : { systemPrompt: { hash: system.hash, sources: system.sources, changes } }),
    ...(session.recovery.leftovers === undefined ? {} : { leftovers: session.recovery.leftovers }),
  }
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`

export const render = (report: SessionReport): string => {
  const native = report.messages.filter((m) => m.replay === "native").length
  const degrades = report.messages.filter((m) => m.replay === "degrades")
  const neutral = report.messages.filter((m) => m.replay === "no-state").length
  const lines = [
    `session ${report.id} (${visibleInLine(report.cwd)}): ${count(report.events, "event")}, ${
      count(report.messages.length, "assistant message")
    }: ${native} replay natively, ${degrades.length} degrade, ${neutral} without replay state`,
  ]
  if (report.systemPrompt !== undefined) {
    const { changes } = report.systemPrompt
    lines.push(
      `  system prompt of the last request: ${TranscriptText.systemLabel(report.systemPrompt, report.cwd)}${
        changes === 0 ? "" : `; it changed ${changes === 1 ? "once" : `${changes} times`} during the session`
      }`,
    )
  }
  const byAdapter = new Map<string, number>()
  for (const m of report.messages) if (m.adapter !== undefined) byAdapter.set(m.adapter, (byAdapter.get(m.adapter) ?? 0) + 1)
  if (byAdapter.size > 1) {
    const written = [...byAdapter].map(([kind, n], i) => (i === 0 ? `${kind} wrote ${count(n, "message")}` : `${kind} ${n}`)).join(", ")
    lines.push(
      `  written by ${byAdapter.size} adapters: ${written}; a request under one sends the others' messages provider-neutral (INVALID_REPLAY_STATE once per message)`,
    )
  }
  for (const m of degrades) lines.push(`  degrades ${m.messageId} (${m.route}): ${m.reason}`)
  for (const r of report.refused) {
    for (const id of r.messageIds) {
      lines.push(`  refused by ${r.route} (event ${r.seq}), sent provider-neutral since: ${id}: ${r.reason}`)
    }
  }
  if (report.compactions > 0) {
    lines.push(
      `  compacted ${
        report.compactions === 1 ? "once" : `${report.compactions} times`
      }: requests start from a summary, then the history from event ${report.keptFromSeq}`,
    )
  }
  if (report.tornTail !== undefined) {
    lines.push(
      `  torn tail: ${report.tornTail.bytes} bytes at line ${report.tornTail.line} (cut off and kept aside when the session is next opened)`,
    )
  }
  for (const leftover of report.leftovers ?? []) {
    lines.push(
      `  leftover: ${leftover.file} (${leftover.bytes} bytes), an unfinished temporary file of a process that stopped; it holds nothing the log does not (removed when the session is next opened)`,
    )
  }
  // A turn in flight in a live process is no damage; one a dead process left open is repaired at the next open.
  const leftOpen = report.openTurn && report.writer === undefined
  if (report.writer !== undefined) lines.push(`  turn in flight: process ${report.writer} is writing this session`)
  if (leftOpen) {
    lines.push("  open turn: the last turn has no end (closed as interrupted when the session is next opened)")
  }
  if (degrades.length === 0 && report.tornTail === undefined && !leftOpen && report.leftovers === undefined) lines.push("  ok")
  return lines.join("\n")
}

export type Entry = SessionReport | { readonly id: string; readonly unreadable: string }

/** The reports for `ids` (every listed session when empty), in order. */
export const examine = (ids: ReadonlyArray<string> | undefined) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const entries: Array<Entry> = []
    let targets = ids
    if (targets === undefined) {
      const listed = yield* store.list().pipe(Effect.mapError(toCommandError))
      targets = listed.sessions.map((s) => s.id)
      for (const { error, id } of listed.unreadable) entries.push({ id, unreadable: error.message })
    }
    for (const id of targets) {
      const report = yield* Effect.either(streamed(store, SessionId.make(id)))
      entries.push(Either.isRight(report) ? report.right : { id, unreadable: report.left.message })
    }
    return entries
  })

export const renderAll = (entries: ReadonlyArray<Entry>): string =>
  entries.length === 0
    ? "no sessions to examine\n"
    : entries.map((e) => ("unreadable" in e ? `session ${e.id}: cannot be read: ${e.unreadable}` : render(e)))
      .join("\n") + "\n"

export interface Options {
  /** An id, or a unique prefix or suffix of one; none: the latest session in this directory (or every one, with `all`). */
  readonly id: string | undefined
  readonly all: boolean
  readonly json: boolean
}

export const doctor = (settings: Settings, options: Options) =>
  Effect.gen(function*() {
    if (options.all && options.id !== undefined) {
      return yield* new UsageError({ message: "doctor takes a session id or --all, not both" })
    }
    const id = options.id !== undefined
      ? yield* SessionIdArg.resolve(options.id)
      : options.all
      ? undefined
      : yield* SessionIdArg.latestIn((yield* Invocation).cwd, "doctor")
    const entries = yield* examine(id === undefined ? undefined : [id])
    yield* options.json ? json(entries) : out(renderAll(entries))
    const unreadable = entries.filter((e) => "unreadable" in e)
    if (unreadable.length > 0) {
      return yield* new CommandFailed({
        message: !options.all && unreadable.length === 1
          ? (unreadable[0] as { unreadable: string }).unreadable
          : `${unreadable.length} session(s) cannot be read`,
      })
    }
  }).pipe(Effect.provide(StoreLayers.readStoreLayer(settings)))
