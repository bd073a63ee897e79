/**
 * The `todo` built-in: the plan the model keeps for the task at hand. Each
 * call gives the whole list (an entry's text, status and priority, as the
 * Agent Client Protocol's plan entries have them), so the latest call is the
 * plan; it is logged as any call and result. It needs no permission and
 * changes nothing outside the log. Its result is the list as a short
 * checklist, which the model and a terminal read; an editor is sent the
 * entries themselves (`entriesOf`).
 */
import { Effect, Either, Schema } from "effect"
import * as Tools from "./Tools.js"

export const NAME = "todo"

export const Status = Schema.Literal("pending", "in_progress", "completed")
export const Priority = Schema.Literal("high", "medium", "low")

export const Entry = Schema.Struct({
  content: Schema.String.annotations({ description: "What is to be done, in a few words" }),
  status: Status.annotations({ description: "pending, in_progress (at most one at a time) or completed" }),
  priority: Priority.annotations({ description: "high, medium or low" }),
})
export type Entry = typeof Entry.Type

const Arguments = Schema.Struct({
  entries: Schema.Array(Entry).annotations({ description: "The whole plan, in order: every entry, not only the changed ones" }),
})

const MARK: Readonly<Record<Entry["status"], string>> = { completed: "[x]", in_progress: "[~]", pending: "[ ]" }

/** The plan as the tool's result: a first line counting what is done, then one line per entry. */
export const checklist = (entries: ReadonlyArray<Entry>): string => {
  const done = entries.filter((e) => e.status === "completed").length
  const head = entries.length === 0 ? "Plan cleared." : `Plan: ${done} of ${entries.length} done`
  return [head, ...entries.map((e) => `${MARK[e.status]} ${e.content}${e.priority === "high" ? " (high)" : ""}`)].join("\n")
}

const decode = Schema.decodeUnknownEither(Schema.parseJson(Arguments))

/** The entries a call's raw arguments give, or `undefined` when they do not decode (the call failed then). */
export const entriesOf = (argumentsJson: string): ReadonlyArray<Entry> | undefined =>
  Either.getOrUndefined(Either.map(decode(argumentsJson), (args) => args.entries))

export const tool = (): Tools.Tool =>
  Tools.define({
    name: NAME,
    description:
      "Keep a plan for a task of several steps: give the whole list of entries each time (content, status, priority), marking an entry in_progress when you start it and completed when it is done. The user sees the plan.",
    parameters: Arguments,
    display: {
      kind: "think",
      title: (args) => `Plan: ${args.entries.filter((e) => e.status === "completed").length} of ${args.entries.length} done`,
    },
    prepare: (args) => Effect.succeed({ run: Effect.succeed(checklist(args.entries)) }),
  })
