/**
 * Permissions for `turnlog run`: asked on the terminal when there is one,
 * otherwise denied with a note that says how to allow them. A denial is an
 * error result the model sees; the turn goes on.
 */
import { createInterface } from "node:readline/promises"
import { Effect, type Layer } from "effect"
import { Permissions } from "@turnlog/agent"

const HOW_TO_ALLOW = `pass --allow-tools or set "permissions": "allow" in the config`

const askTerminal = (request: Permissions.Request): Effect.Effect<Permissions.Decision> =>
  Effect.promise(async () => {
    const rl = createInterface({ input: process.stdin, output: process.stderr })
    try {
      const answer = await rl.question(`turnlog: allow ${request.title}? [y/N] `)
      return /^y(es)?$/i.test(answer.trim()) ? "allow" : "deny"
    } finally {
      rl.close()
    }
  })

export const layer = (): Layer.Layer<Permissions.Permissions> =>
  Permissions.layerAsk((request) =>
    process.stdin.isTTY === true
      ? askTerminal(request)
      : Effect.sync(() => {
        process.stderr.write(`turnlog: denied ${request.title} (no terminal to ask; ${HOW_TO_ALLOW})\n`)
        return "deny" as const
      })
  )
