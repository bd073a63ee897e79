/**
 * Permissions for `turnlog run`: asked on the terminal when there is one,
 * otherwise denied with a note that says how to allow them. A denial is an
 * error result the model sees; the turn goes on.
 */
import { createInterface } from "node:readline"
import { Effect, type Layer } from "effect"
import { Permissions } from "@turnlog/agent"
import * as Color from "./Color.js"
import * as EditDiff from "./EditDiff.js"
import { isTTY, rawErr, Terminal } from "./Output.js"
import * as PermissionDetail from "./PermissionDetail.js"
import { Invocation } from "./Settings.js"
import { visible } from "./Visible.js"

const HOW_TO_ALLOW = `pass --allow-tools or set "permissions": "allow" in the config`

/**
 * One question on the terminal, after what the call will write or run (see
 * `PermissionDetail`). "y" or "yes" allows; anything else, or the end
 * of input (Ctrl-D), denies. Ctrl-C — which the terminal's raw mode hands to
 * the question as a key, not as a signal — stops the turn as a Ctrl-C anywhere
 * else does: the question stays unanswered and the process gets its SIGINT.
 */
const askTerminal = (
  request: Permissions.Request,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Effect.Effect<Permissions.Decision> =>
  Effect.async<Permissions.Decision>((resume) => {
    const rl = createInterface({ input, output })
    let settled = false
    const settle = (decision: Permissions.Decision) => {
      if (settled) return
      settled = true
      rl.close()
      resume(Effect.succeed(decision))
    }
    rl.on("SIGINT", () => {
      settled = true
      rl.close()
      output.write("\n")
      process.kill(process.pid, "SIGINT")
    })
    rl.on("close", () => settle("deny"))
    const { detail, diff } = PermissionDetail.of(request)
    const paint = diff && Color.allowed()
    for (const line of detail) output.write(`  ${diff ? EditDiff.paintLine(line, paint) : visible(line)}\n`)
    rl.question(`turnlog: allow ${visible(request.title)}? [y/N] `, (answer) => settle(/^y(es)?$/i.test(answer.trim()) ? "allow" : "deny"))
    // Interrupted (the turn was cancelled): the question is withdrawn.
    return Effect.sync(() => {
      settled = true
      rl.close()
    })
  })

/**
 * The command's stdin and stderr (see `Invocation`, `Terminal`). The question
 * is asked only where it can be seen and answered: both on a terminal.
 */
export const layer = (): Layer.Layer<Permissions.Permissions> =>
  Permissions.layerAsk((request) =>
    Effect.flatMap(Effect.zip(Invocation, Terminal), ([{ stdin }, { stderr }]) =>
      stdin.isTTY === true && isTTY(stderr)
        ? askTerminal(request, stdin, stderr)
        : Effect.as(rawErr(`turnlog: denied ${visible(request.title)} (no terminal to ask; ${HOW_TO_ALLOW})\n`), "deny" as const))
  )
