// A continued session keeps its model: `run --continue` and `run --session`
// talk to the route the session's last request used, not the config's model;
// `--model` switches it, says so on stderr, and the history made on the other
// provider is still sent (degraded where its replay state cannot be used).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { loopbackHome } from "./support/loopbackHome.js"
import { turnlog } from "./support/inProcess.js"
import { logLines, removeTempDirs, sessionIds, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })
afterAll(removeTempDirs)

describe("the session's model", () => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  it("is kept by --continue and --session; --model switches it and says so", async () => {
    const { home, env } = loopbackHome(server, {
      model: "loop/m",
      providers: {
        loop: {
          api: "anthropic-messages",
          models: [{ id: "m", contextWindow: 200000, maxTokens: 8192 }],
        },
        other: {
          api: "openai-completions",
          models: [{ id: "big", contextWindow: 200000, maxTokens: 8192 }],
        },
      },
    }, "model")
    const cwd = tempDir("model-cwd")
    const turn = async (args: ReadonlyArray<string>, answer: string) => {
      const before = server.requests().length
      server.enqueue({ blocks: [{ type: "text", text: answer }] })
      const outcome = await turnlog(["run", ...args], { cwd, env })
      expect(outcome.stdout).toBe(`${answer}\n`)
      expect(outcome.code).toBe(0)
      const request = server.requests()[before]!
      return { stderr: outcome.stderr, sent: `${request.api} ${request.model}` }
    }

    const first = await turn(["--model", "other/big", "first"], "one")
    expect(first.sent).toBe("openai-completions big")
    const [id] = sessionIds(home)
    expect(first.stderr).toBe(`turnlog: session ${id}\n`)

    // Not the config's loop/m: the session's other/big, without a word.
    const second = await turn(["--continue", "second"], "two")
    expect(second).toEqual({ stderr: `turnlog: session ${id}\n`, sent: "openai-completions big" })

    const third = await turn(["--continue", "--model", "loop/m", "third"], "three")
    expect(third.sent).toBe("anthropic-messages m")
    expect(third.stderr.split("\n")).toContain("turnlog: model: other/big → loop/m")

    const fourth = await turn(["--session", id!, "fourth"], "four")
    expect(fourth).toEqual({ stderr: `turnlog: session ${id}\n`, sent: "anthropic-messages m" })
    // The fourth request carried the whole conversation, the other provider's answers included.
    const messages = (server.requests().at(-1)!.body as { messages: Array<{ role: string }> }).messages
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user"])

    const routes = logLines(home, id!).filter((l) => l.type === "request/start").map((l) => `${l.data.provider}/${l.data.model}`)
    expect(routes).toEqual(["other/big", "other/big", "loop/m", "loop/m"])
  })
})
