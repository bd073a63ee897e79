/**
 * `turnlog compact [--session <id> | --continue] [--focus <text>]`: summarises a session's
 * older history now, with the session's model, as the loop does when a request
 * would not fit; prints the request estimates before and after on stdout.
 */
import { Effect, Option } from "effect"
import { AgentLoop, Permissions } from "@turnlog/agent"
import type { SessionId } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import { CommandFailed, UsageError } from "../CliError.js"
import * as Layers from "../Layers.js"
import * as ModelChoice from "../ModelChoice.js"
import { note, out } from "../Output.js"
import * as SessionIdArg from "../SessionIdArg.js"
import { Invocation, type Settings } from "../Settings.js"
import { asCommandError } from "../StoreErrors.js"
import { announce, noProvider } from "./Run.js"

export interface CompactOptions {
  readonly session: Option.Option<string>
  readonly continue: boolean
  /** What the summary should keep in view. */
  readonly focus?: Option.Option<string>
}

/** What a compaction did, in one line (the interactive session's `/compact` says the same). */
export const outcome = (id: SessionId, done: AgentLoop.Compacted): string =>
  done._tag === "nothing-to-cut"
    ? `session ${id}: nothing to compact; its next request is about ${done.tokens} tokens, all recent history`
    : `session ${id}: compacted; its next request is about ${done.tokensBefore} tokens before, about ${done.tokensAfter} tokens after`

const latestHere = Effect.gen(function*() {
  const store = yield* SessionStore.SessionStore
  const cwd = (yield* Invocation).cwd
  const latest = (yield* store.list({ cwd })).sessions[0]
  if (latest === undefined) return yield* new CommandFailed({ message: `no session to compact in ${cwd}` })
  return latest.id
})

export const compact = (settings: Settings, options: CompactOptions) =>
  Effect.gen(function*() {
    if (Option.isSome(options.session) === options.continue) {
      return yield* new UsageError({
        message: "compact needs one of --session <id> or --continue (the latest session in this directory)",
      })
    }
    const choice = yield* ModelChoice.choose(Option.none(), settings, (yield* Invocation).env)
    if (choice.kind === "demo") {
      yield* Layers.providersChecked(settings)
      return yield* new UsageError({ message: noProvider(settings) })
    }
    const work = Effect.gen(function*() {
      const loop = yield* AgentLoop.AgentLoop
      const id: SessionId = Option.isSome(options.session)
        ? yield* SessionIdArg.parse(options.session.value)
        : yield* latestHere
      // The session's own model writes the summary (the route of its last request).
      const loaded = yield* loop.load(id, { keepModel: true })
      const last = AgentLoop.lastRoute(loaded.events)
      if (last === undefined || `${last.provider}/${last.model}` === choice.route) yield* announce(choice)
      const focus = Option.getOrUndefined(options.focus ?? Option.none())
      const done = yield* loop.compact(id, focus === undefined ? {} : { focus }).pipe(
        Effect.catchTag("CompactionFailed", (e) => Effect.fail(new CommandFailed({ message: e.message }))),
      )
      yield* out(`${outcome(id, done)}\n`)
      if (done._tag === "nothing-to-cut") return
      yield* note(`the older events stay in the log (turnlog show ${id} marks them)`)
    }).pipe(Effect.mapError(asCommandError))
    return yield* work.pipe(
      Effect.provide(Layers.agentLayer({
        settings,
        choice,
        // A compaction runs no tool.
        permissions: Permissions.layerDenyAll,
      })),
    )
  })
