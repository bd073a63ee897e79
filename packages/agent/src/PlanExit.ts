/**
 * The `exit_plan_mode` built-in: how the model proposes to leave read-only
 * (plan) mode. It is offered only while the session is read-only; a call
 * shows the plan and asks the user (permission kind `mode`, asked whatever
 * the mode), and once allowed the loop writes `session/mode` `ask` before the
 * call's result, so the rest of the turn writes and runs with the user asked
 * as usual.
 */
import { Effect, Schema } from "effect"
import type { SessionLog } from "@turnlog/protocol"
import * as Tools from "./Tools.js"

export const NAME = "exit_plan_mode"

/** The mode an approved plan leaves the session in. */
export const TARGET: SessionLog.Mode = "ask"

export const tool = (): Tools.Tool =>
  Tools.define({
    name: NAME,
    description:
      "Propose to leave read-only mode and carry out your plan. Give the plan (the changes, file by file, and how you will check them); the user approves or keeps planning. Only offered in read-only mode.",
    parameters: Schema.Struct({
      plan: Schema.String.annotations({ description: "The plan to carry out, as the user should read it" }),
    }),
    display: { kind: "switch_mode", title: () => "Leave read-only mode and carry out the plan" },
    prepare: () =>
      Effect.succeed({
        permission: { kind: "mode" as const },
        run: Effect.succeed(
          "The user approved the plan. The session is now in ask mode: carry out the plan; each write and command is asked for as usual.",
        ),
      }),
  })

/** The tools a request offers in `mode`: `exit_plan_mode` only while read-only. */
export const offered = (tools: Tools.Service, mode: SessionLog.Mode): Tools.Service =>
  mode === "read-only" ? tools : { ...tools, specs: tools.specs.filter((spec) => spec.name !== NAME) }
