// The grace `turnlog acp` gives a repeated stop signal while it answers its prompts:
// the second is noted and held, the third is sent again with nothing holding it.
import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import * as SignalHold from "../src/SignalHold.js"

describe("SignalHold", () => {
  it("notes the second signal, resends the third with no listener of its own left", async () => {
    const notes: Array<string> = []
    const resent: Array<string> = []
    const scope = Effect.runSync(Scope.make())
    const before = process.listenerCount("SIGINT")
    Effect.runSync(Scope.extend(SignalHold.hold((line) => notes.push(line), (s) => resent.push(s)), scope))
    expect(process.listenerCount("SIGINT")).toBe(before + 1)
    process.emit("SIGINT", "SIGINT")
    expect(notes).toEqual([])
    process.emit("SIGINT", "SIGINT")
    expect(notes).toEqual([
      "SIGINT received again: still answering the prompts in flight; send it once more to stop at once",
    ])
    expect(resent).toEqual([])
    process.emit("SIGINT", "SIGINT")
    expect(resent).toEqual(["SIGINT"])
    expect(process.listenerCount("SIGINT")).toBe(before)
    Effect.runSync(Scope.close(scope, Exit.void))
  })

  it("lets go of both signals when its scope closes", () => {
    const before = [process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")]
    Effect.runSync(Effect.scoped(SignalHold.hold(() => undefined, () => undefined)))
    expect([process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")]).toEqual(before)
  })
})
