/**
 * The interactive session's slash commands. Each does what the command line
 * does for the same task — `/compact` is `turnlog compact`, `/sessions` is
 * `turnlog sessions`, `/model` is `--model` on continue — and says the
 * outcome in the view.
 */
import { resolve } from "node:path"
import type { SlashCommand } from "@mariozechner/pi-tui"
import { Effect } from "effect"
import { AgentLoop } from "@turnlog/agent"
import * as Modes from "@turnlog/acp/Modes"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import type { SessionStore, StoreError } from "@turnlog/store"
import { CommandFailed, UsageError } from "../CliError.js"
import * as Doctor from "../commands/Doctor.js"
import { render } from "../commands/Sessions.js"
import type { ChatView } from "./ChatView.js"
import * as Resume from "./Resume.js"

/** The commands, as the editor completes them and `/help` lists them; `/model` completes from `models`. */
export const commands = (models: ReadonlyArray<string> = []): ReadonlyArray<SlashCommand> => [
  { name: "help", description: "what can be typed here" },
  { name: "new", description: "start a new session in this directory" },
  {
    name: "model",
    description: "switch the session's model",
    argumentHint: "<provider/model>",
    getArgumentCompletions: (prefix) => models.filter((m) => m.startsWith(prefix)).map((m) => ({ value: m, label: m })),
  },
  {
    name: "mode",
    description: "how tools may write and run commands: ask, read-only (plan), auto-edit, full-access",
    argumentHint: "[<mode>]",
    getArgumentCompletions: (prefix) => SessionLog.MODES.filter((m) => m.startsWith(prefix)).map((m) => ({ value: m, label: m })),
  },
  {
    name: "reasoning",
    description: "how hard a model that reasons thinks: off, low, medium, high",
    argumentHint: "[<effort>]",
    getArgumentCompletions: (prefix) => SessionLog.REASONING_EFFORTS.filter((e) => e.startsWith(prefix)).map((e) => ({ value: e, label: e })),
  },
  { name: "resume", description: "switch to another session of this directory" },
  { name: "compact", description: "summarise the session's older history now (/compact <focus>: what to keep in view)" },
  { name: "sessions", description: "list the stored sessions" },
  { name: "export", description: "write the session as one HTML page (as turnlog export --html)", argumentHint: "[<file.html>]" },
  { name: "doctor", description: "what this build makes of the session's log (as turnlog doctor)" },
  { name: "quit", description: "leave (also Ctrl-D, or Ctrl-C twice at an empty prompt)" },
]

export const COMMANDS = commands()

/** What `/help` shows: each command with what it does, then the editor's keys. */
export const help = (): { readonly rows: ReadonlyArray<readonly [string, string]>; readonly keys: string } => ({
  rows: COMMANDS.map((c) => [`/${c.name}${c.argumentHint === undefined ? "" : ` ${c.argumentHint}`}`, c.description ?? ""] as const),
  keys:
    "Enter sends; Shift-Enter (or \\ then Enter) starts a new line; Esc clears; Shift-Tab switches the mode (ask, auto-edit, read-only); Ctrl-C cancels a running turn.",
})

/**
 * The mode Shift-Tab moves to: ask → auto-edit → read-only → ask. Full
 * access is never a key press away: it is chosen by name (`/mode full-access`),
 * and from it Shift-Tab goes back to ask.
 */
export const nextMode = (mode: SessionLog.Mode): SessionLog.Mode => mode === "ask" ? "auto-edit" : mode === "auto-edit" ? "read-only" : "ask"

export interface Deps {
  readonly view: Pick<ChatView, "note" | "block" | "columns" | "table" | "setFooter" | "pick" | "apply" | "endCompaction">
  readonly loop: AgentLoop.Service
  readonly store: SessionStore.Service
  /** The session, model, mode and reasoning effort in use; `/new`, `/model`, `/mode` and `/reasoning` change them. */
  readonly state: { id: SessionId; model: string; mode: SessionLog.Mode; reasoning: SessionLog.ReasoningEffort }
  readonly newSession: Effect.Effect<SessionId, AgentLoop.AgentError>
  readonly switchSession: (id: SessionId) => Effect.Effect<void, AgentLoop.AgentError | StoreError.StoreError>
  readonly cwd: string
  /** What `/model` alone offers to choose from. */
  readonly models: ReadonlyArray<string>
  readonly switchModel: (model: string) => Effect.Effect<void, AgentLoop.AgentError>
  /** Logs the session's mode (`session/mode`) and keeps it in `state`. */
  readonly setMode: (mode: SessionLog.Mode) => Effect.Effect<void, AgentLoop.AgentError>
  /** Logs the session's reasoning effort (`session/reasoning`) and keeps it in `state`. */
  readonly setReasoning: (effort: SessionLog.ReasoningEffort) => Effect.Effect<void, AgentLoop.AgentError>
  /** Whether the model of a route takes a reasoning effort. */
  readonly reasons: (route: string) => boolean
  /** Writes the session's HTML page to `path` (absolute), whole or not at all. */
  readonly exportPage: (id: SessionId, path: string) => Effect.Effect<void, CommandFailed | StoreError.StoreError>
}

/** Where `/export` writes when no file is named: the current directory, named for the session. */
export const exportName = (id: SessionId): string => `turnlog-${id}.html`

export type Next = "stay" | "quit"

export const make = (deps: Deps) => {
  const { view, state } = deps
  const run = (
    line: string,
  ): Effect.Effect<Next, AgentLoop.AgentError | StoreError.StoreError | CommandFailed | UsageError> => {
    const [name = "", ...rest] = line.slice(1).split(/\s+/)
    const argument = rest.join(" ").trim()
    switch (name) {
      case "help":
        return Effect.sync(() => {
          const { rows, keys } = help()
          view.columns(rows, keys)
          return "stay"
        })
      case "quit":
      case "exit":
        return Effect.succeed("quit")
      case "new":
        return Effect.map(deps.newSession, (id) => {
          view.note(`new session ${id}`)
          view.setFooter({ session: id, inputTokens: undefined, outputTokens: undefined })
          return "stay"
        })
      case "model": {
        const switchTo = (model: string) => {
          const was = state.model
          return AgentLoop.parseModel(model).pipe(
            Effect.zipRight(deps.switchModel(model)),
            Effect.map((): Next => {
              state.model = model
              view.note(was === model ? `the model stays ${model}` : `model: ${was} → ${model} from the next turn on`)
              view.setFooter({ model })
              return "stay"
            }),
          )
        }
        if (argument !== "") return switchTo(argument)
        if (deps.models.length === 0) {
          return Effect.sync(() => {
            view.note(`the model is ${state.model}; switch with /model <provider/model>`)
            return "stay"
          })
        }
        const items = deps.models.map((m) => ({ value: m, label: m, ...(m === state.model ? { description: "in use" } : {}) }))
        return Effect.promise(() => view.pick(`Switch from ${state.model} to which model?`, items, state.model)).pipe(
          Effect.flatMap((chosen) => (chosen === undefined ? Effect.succeed<Next>("stay") : switchTo(chosen))),
        )
      }
      case "mode": {
        const switchTo = (mode: SessionLog.Mode) => {
          const was = state.mode
          return Effect.map(deps.setMode(mode), (): Next => {
            view.note(was === mode ? `the mode stays ${mode}` : `mode: ${was} → ${mode}: ${Modes.described[mode].description}`)
            view.setFooter({ mode })
            return "stay"
          })
        }
        if (argument !== "") {
          const mode = SessionLog.MODES.find((m) => m === argument)
          return mode === undefined
            ? Effect.fail(new UsageError({ message: `unknown mode ${argument}: choose ${SessionLog.MODES.join(", ")}` }))
            : switchTo(mode)
        }
        const items = SessionLog.MODES.map((m) => ({
          value: m,
          label: m === state.mode ? `${m} (in use)` : m,
          description: Modes.described[m].description,
        }))
        return Effect.promise(() => view.pick(`The session is in ${state.mode} mode; switch to which?`, items, state.mode)).pipe(
          Effect.flatMap((chosen) => (chosen === undefined ? Effect.succeed<Next>("stay") : switchTo(chosen as SessionLog.Mode))),
        )
      }
      case "reasoning": {
        const switchTo = (effort: SessionLog.ReasoningEffort) => {
          const was = state.reasoning
          return Effect.map(deps.setReasoning(effort), (): Next => {
            const said = was === effort ? `the reasoning effort stays ${effort}` : `reasoning effort: ${was} → ${effort} from the next turn on`
            // Kept all the same: a later switch to a model that reasons uses it.
            view.note(deps.reasons(state.model) || effort === "off" ? said : `${said} (${state.model} does not reason: it applies to a model that does)`)
            view.setFooter({ reasoning: effort })
            return "stay"
          })
        }
        if (argument !== "") {
          const effort = SessionLog.REASONING_EFFORTS.find((e) => e === argument)
          return effort === undefined
            ? Effect.fail(
              new UsageError({ message: `unknown reasoning effort ${argument}: choose ${SessionLog.REASONING_EFFORTS.join(", ")}` }),
            )
            : switchTo(effort)
        }
        const items = SessionLog.REASONING_EFFORTS.map((e) => ({ value: e, label: e, ...(e === state.reasoning ? { description: "in use" } : {}) }))
        return Effect.promise(() => view.pick(`Reasoning effort (now ${state.reasoning}): which?`, items, state.reasoning)).pipe(
          Effect.flatMap((chosen) => (chosen === undefined ? Effect.succeed<Next>("stay") : switchTo(chosen as SessionLog.ReasoningEffort))),
        )
      }
      case "resume":
        return Resume.here(deps.store, deps.cwd).pipe(
          Effect.flatMap((all) => {
            const others = all.filter((s) => s.id !== state.id)
            if (others.length === 0) {
              view.note("no other session in this directory")
              return Effect.succeed<Next>("stay")
            }
            return Effect.promise(() => view.pick("Resume which session?", Resume.items(others, Date.now()))).pipe(
              Effect.flatMap((chosen) =>
                chosen === undefined
                  ? Effect.succeed<Next>("stay")
                  : Effect.as(deps.switchSession(chosen as SessionId), "stay" as const).pipe(
                    Effect.tap(() => view.setFooter({ session: chosen, inputTokens: undefined, outputTokens: undefined })),
                  )
              ),
            )
          }),
        )
      case "export": {
        const path = resolve(deps.cwd, argument === "" ? exportName(state.id) : argument)
        const id = state.id
        return Effect.map(deps.exportPage(id, path), () => {
          view.note(`exported to ${path}`)
          return "stay" as const
        })
      }
      case "doctor":
        return Effect.map(deps.store.read(state.id), (loaded) => {
          view.block(Doctor.render(Doctor.diagnose(loaded)))
          return "stay" as const
        })
      case "compact":
        // The same status line as a compaction the loop starts: said while the summary is asked for.
        return Effect.suspend(() => {
          view.apply({ type: "compaction", phase: "start" })
          return deps.loop.compact(state.id, argument === "" ? {} : { focus: argument })
        }).pipe(
          Effect.tapError(() => Effect.sync(() => view.endCompaction())),
          Effect.catchTag("CompactionFailed", (e) => Effect.fail(new CommandFailed({ message: e.message }))),
          Effect.map((done) => {
            if (done._tag === "compacted") {
              view.apply({ type: "compaction", phase: "done", tokensBefore: done.tokensBefore, tokensAfter: done.tokensAfter })
            } else view.endCompaction(`nothing to compact: all ${done.tokens} tokens of history are recent`)
            return "stay"
          }),
        )
      case "sessions":
        return deps.store.list().pipe(
          Effect.mapError((e) => new CommandFailed({ message: e.message })),
          Effect.map(({ sessions, unreadable }) => {
            view.table(render(sessions))
            if (unreadable.length > 0) view.note(`${unreadable.length} session(s) cannot be read (see: turnlog doctor --all)`)
            return "stay"
          }),
        )
      default:
        return Effect.fail(new UsageError({ message: `unknown command /${name}; /help lists them` }))
    }
  }
  return { run }
}
