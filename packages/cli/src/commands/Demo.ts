/**
 * `turnlog demo`: the keyless showcase. One scripted session and one session
 * left by an older build run through the real store, loop, tools and read
 * side, in a fresh directory under the home; each moment the design is about
 * is labelled from what the log actually holds, then `doctor` sums it up,
 * and each session is written as an HTML page (`export --html`) beside them.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer, Ref, Stream } from "effect"
import { AgentLoop, Builtins, Permissions, Tools } from "@turnlog/agent"
import { ReplayDiagnostics } from "@turnlog/llm"
import { type SessionId, SessionLog } from "@turnlog/protocol"
import { SessionStore } from "@turnlog/store"
import { CommandFailed, UsageError } from "../CliError.js"
import * as DemoScript from "../DemoScript.js"
import * as HtmlExport from "../html/HtmlExport.js"
import * as Layers from "../Layers.js"
import { out } from "../Output.js"
import * as OutputFile from "../OutputFile.js"
import type { Settings } from "../Settings.js"
import { asCommandError } from "../StoreErrors.js"
import * as Doctor from "./Doctor.js"

type Diagnostic = ReplayDiagnostics.ReplayDiagnostic

const line = (text = "") => out(`${text}\n`)
const label = (tag: string, text: string) => line(`  » [${tag}] ${text}`)
const section = (title: string) => line(`\n━━ ${title}`)

/** Streams one turn, printing it as a transcript; returns how it ended. */
const turn = (id: SessionId, prompt: string) =>
  Effect.gen(function*() {
    const loop = yield* AgentLoop.AgentLoop
    yield* line(`user: ${prompt}`)
    let speaking: "text" | "thinking" | undefined
    // Ends the assistant's line before anything else is printed.
    const say = (text: string) =>
      Effect.suspend(() => {
        const prefix = speaking !== undefined ? "\n" : ""
        speaking = undefined
        return line(`${prefix}${text}`)
      })
    const speak = (mode: "text" | "thinking", text: string) =>
      Effect.suspend(() => {
        const start = speaking === mode
          ? ""
          : `${speaking === undefined ? "" : "\n"}${mode === "text" ? "assistant" : "assistant (thinking)"}: `
        speaking = mode
        return out(`${start}${text}`)
      })
    const end = yield* loop.prompt(id, prompt).pipe(
      Stream.runFoldEffect("" as string, (reason, update) => {
        switch (update.type) {
          case "text-delta":
            return Effect.as(speak("text", update.text), reason)
          case "reasoning-delta":
            return Effect.as(speak("thinking", update.text), reason)
          case "tool-call":
            return Effect.as(
              say(`tool call: ${Tools.make(Builtins.tools()).display(update).title}`),
              reason,
            )
          case "tool-result":
            return Effect.as(
              say(`tool result${update.isError ? " (error)" : ""}: ${update.content.trimEnd().split("\n").join(" / ")}`),
              reason,
            )
          case "turn-end":
            return Effect.succeed(update.reason as string)
          default:
            return Effect.succeed(reason)
        }
      }),
    )
    yield* say(`(turn ended: ${end})`)
    return end
  })

const eventsOfLastTurn = (events: ReadonlyArray<SessionLog.SessionEvent>) => {
  let start = 0
  events.forEach((e, i) => {
    if (e.type === "turn/start") start = i
  })
  return events.slice(start)
}

const envelopeEntries = (state: unknown): number | undefined => {
  if (typeof state !== "object" || state === null) return undefined
  const blocks = (state as { blocks?: unknown }).blocks
  return Array.isArray(blocks) ? blocks.length : undefined
}

const program = (workspace: string, diagnostics: Ref.Ref<ReadonlyArray<Diagnostic>>) =>
  Effect.gen(function*() {
    const loop = yield* AgentLoop.AgentLoop
    const store = yield* SessionStore.SessionStore

    // ── A session cut off at the output limit, then continued.
    const id = yield* loop.createSession({ cwd: workspace })
    yield* section(`Session ${id}: a response cut off at the output limit while calling a tool`)
    const first = yield* turn(id, DemoScript.PROMPTS.cutOff)
    const turn1 = eventsOfLastTurn((yield* store.read(id)).events)
    const chunks1 = SessionLog.chunksIn(turn1)
    const finish = chunks1.flatMap((c) => (c.type === "finish" ? [c] : []))[0]
    const stored = turn1.flatMap((e) => (e.type === "assistant/message" ? [e.data.message] : []))[0]
    const streamedCalls = chunks1.filter((c) => c.type === "tool-call-delta")
    const toolCalls = turn1.filter((e) => e.type === "tool/call").length
    yield* label(
      "cut off",
      `the turn ended ${first}; the model had streamed ${streamedCalls.length > 0 ? "a tool call" : "no tool call"} ` +
        `it never finished. Kept blocks: ${stored?.content.map((b) => b.type).join(", ") ?? "none"}; ` +
        `tool calls logged or run: ${toolCalls}.`,
    )
    yield* label(
      "pruned",
      `the raw finish chunk's envelope has ${envelopeEntries(finish?.replayState) ?? 0} block entries; ` +
        `the stored message's has ${envelopeEntries(stored?.source.kind === "model" ? stored.source.replayState : undefined) ?? 0}, one per kept block.`,
    )

    yield* line()
    const before = (yield* Ref.get(diagnostics)).length
    yield* turn(id, DemoScript.PROMPTS.resume)
    const during = (yield* Ref.get(diagnostics)).slice(before)
    const report = Doctor.diagnose(yield* store.read(id))
    const cutOff = report.messages.find((m) => m.messageId === stored?.id)
    yield* label(
      "replayed natively",
      `the cut-off message went back in the continuation's request ${
        cutOff?.replay === "native" ? "natively, with its pruned envelope" : `as ${cutOff?.replay}`
      }; diagnostics during the turn: ${during.length}.`,
    )
    const ran = eventsOfLastTurn((yield* store.read(id)).events).filter((e) => e.type === "tool/result").length
    yield* label("tool ran", `the continuation's read_file call was logged, allowed, run, and its result stored (${ran} result).`)

    // ── A session an older build left behind, resumed.
    const legacy = yield* store.create({ cwd: workspace })
    yield* store.append(legacy, DemoScript.legacyEvents(new Date().toISOString()))
    yield* store.release(legacy)
    yield* section(`Session ${legacy}: left by an older build (flat version-1 replay state), resumed`)
    yield* loop.load(legacy)
    const beforeLegacy = (yield* Ref.get(diagnostics)).length
    const legacyEnd = yield* turn(legacy, DemoScript.PROMPTS.legacy)
    const degraded = (yield* Ref.get(diagnostics)).slice(beforeLegacy)
    for (const d of degraded) yield* label("degraded", ReplayDiagnostics.format(d))
    yield* label(
      "continued",
      `${degraded.length} message(s) went as provider-neutral content and the turn still ended ${legacyEnd}.`,
    )
    return [id, legacy] as const
  })

/**
 * A demo's own directory under `parent`, named by `stamp`, with its workspace
 * and notes file. Made in one step, so another demo started in the same second
 * takes the next name (`<stamp>-2`, …) and never sees this one's sessions.
 */
export const makeDirectory = (parent: string, stamp: string): string => {
  mkdirSync(parent, { recursive: true })
  for (let n = 1;; n++) {
    const dir = join(parent, n === 1 ? stamp : `${stamp}-${n}`)
    try {
      mkdirSync(dir)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") continue
      throw e
    }
    const workspace = join(dir, "workspace")
    mkdirSync(workspace)
    writeFileSync(join(workspace, DemoScript.NOTES_FILE), DemoScript.NOTES)
    return dir
  }
}

export const demo = (settings: Settings) =>
  Effect.gen(function*() {
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")
    const parent = join(settings.home, "demo")
    const dir = yield* Effect.try({
      try: () => makeDirectory(parent, stamp),
      catch: (e) =>
        new CommandFailed({
          message: `cannot create a demo directory under ${parent}: ${e instanceof Error ? e.message : e}`,
        }),
    })
    const workspace = join(dir, "workspace")
    yield* line("turnlog demo: a scripted model through the real store, agent loop, tools and replay (no key, no network)")
    yield* line(`directory: ${dir}`)

    const diagnostics = yield* Ref.make<ReadonlyArray<Diagnostic>>([])
    const demoSettings: Settings = { ...settings, home: dir }
    const layer = AgentLoop.layer({ model: DemoScript.ROUTE }).pipe(
      Layer.mapError((e) => new UsageError({ message: e.message })),
      Layer.provide(Layer.mergeAll(
        Layers.keylessModel(DemoScript.calls),
        Layers.toolsLayer(demoSettings),
        Permissions.layerAllowAll,
      )),
      Layer.provideMerge(Layers.storeLayer(demoSettings)),
      Layer.provide(Layer.succeed(ReplayDiagnostics.ReplayDiagnostics, {
        report: (ds) => Ref.update(diagnostics, (all) => [...all, ...ds]),
      })),
    )
    const ids = yield* program(workspace, diagnostics).pipe(Effect.mapError(asCommandError), Effect.provide(layer))

    yield* section("turnlog doctor")
    const entries = yield* Doctor.examine(undefined).pipe(Effect.provide(Layers.storeLayer(demoSettings)))
    yield* out(Doctor.renderAll(entries))

    yield* section("turnlog export --html")
    for (const id of ids) {
      const page = join(dir, `${id}.html`)
      yield* OutputFile.writeFile(page, (write) => HtmlExport.writePage(id, settings.store, write)).pipe(
        Effect.mapError(asCommandError),
        Effect.provide(Layers.readStoreLayer(demoSettings)),
      )
      yield* line(`  ${page}`)
    }
    yield* line("  each session as one page (open it in a browser; it loads nothing from the network)")
    yield* line()
    const store = settings.store === "jsonl" ? "" : ` --store ${settings.store}`
    yield* line(`look again: turnlog --home ${dir}${store} sessions | show <id> | doctor --all`)
    yield* line('talk to a model in the terminal: turnlog chat (with a provider key set; see "In the terminal" in the README)')
  })
