// A session moved between adapters through the command line (in-process): the config gives
// the provider to pi-ai, then to the AI SDK adapter, then back, and the same
// session continues on the same route. On every request the adapter in use
// sends its own messages' signatures and none of the other kind's; each
// message of the other kind is sent provider-neutral, with one
// INVALID_REPLAY_STATE line on stderr for it; doctor and the HTML page say
// the same of the stored session.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Loopback } from "@turnlog/testkit"
import { turnlog } from "./support/inProcess.js"
import { logLines, removeTempDirs, sessionIds, tempDir } from "./support/turnlog.js"

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 })
afterAll(removeTempDirs)

const APIS = ["anthropic-messages", "openai-responses", "google-generative-ai", "openai-completions"] as const
type Api = (typeof APIS)[number]

/** A signature unique to `id`, in the form the wire carries it. */
const signatureOf = (api: Api, id: string) => api === "openai-responses" ? `gAAAAABenc-${id}` : Buffer.from(`signature of ${id}`).toString("base64")

/** An answer whose reasoning is signed with `id`'s signature (on the Responses wire, its own reasoning item). */
const signedReply = (api: Api, id: string): Loopback.ReplyInput => ({
  blocks: [
    api === "openai-responses"
      ? { type: "reasoning", text: `Think (${id}).`, signature: signatureOf(api, id), id: `rs_${id}` }
      : { type: "reasoning", text: `Think (${id}).`, signature: signatureOf(api, id) },
    { type: "text", text: `Answer ${id}.` },
  ],
})

describe.each(APIS)("%s: a session moved pi-ai → ai-sdk → pi-ai", (api) => {
  let server: Loopback.Server
  beforeAll(async () => {
    server = await Loopback.start()
  })
  afterAll(() => server.close())

  // The AI SDK's chat-completions provider keeps reasoning without a signature: it has none of its own to send.
  const aiSdkSigns = api !== "openai-completions"

  it("sends each adapter's own signatures, never the other's, and reports each degraded message once", async () => {
    const home = tempDir("switch-home")
    const cwd = tempDir("switch-cwd")
    const configUsing = (adapter: "pi-ai" | "ai-sdk" | undefined) =>
      writeFileSync(
        join(home, "config.json"),
        JSON.stringify({
          model: "loop/m",
          providers: {
            loop: {
              ...(adapter === undefined ? {} : { adapter }),
              api,
              baseUrl: server.baseUrl(api),
              apiKeyEnv: "LOOP_TEST_KEY",
              models: [{ id: "m", contextWindow: 200000, maxTokens: 8192, reasoning: true }],
            },
          },
        }),
      )
    const env = { TURNLOG_HOME: home, LOOP_TEST_KEY: "sk-switch-0123456789" }
    const turn = async (adapter: "pi-ai" | "ai-sdk" | undefined, id: string, prompt: string, more: ReadonlyArray<string>) => {
      configUsing(adapter)
      const before = server.requests().length
      server.enqueue(signedReply(api, id))
      const outcome = await turnlog(["run", ...more, prompt], { cwd, env })
      expect(outcome.stdout, outcome.stderr).toContain(`Answer ${id}.`)
      expect(outcome.code).toBe(0)
      expect(server.requests().length).toBe(before + 1)
      const wire = JSON.stringify(server.requests()[before]!.body)
      const diagnostics = outcome.stderr.split("\n").filter((line) => line.includes("INVALID_REPLAY_STATE"))
      return { wire, diagnostics }
    }
    const assistantIds = () => {
      const [session] = sessionIds(home)
      return logLines(home, session!).filter((l) => l.type === "assistant/message").map((l) => l.data.message.id as string)
    }
    const line = (messageId: string, reason: string) => {
      const [session] = sessionIds(home)
      return `turnlog: INVALID_REPLAY_STATE: session ${session}, message ${messageId} (loop/m -> loop/m) sent as provider-neutral content: ${reason}`
    }
    const piAiRefused = 'replay state kind "pi-ai" is not "ai-sdk"'
    const aiSdkRefused = 'replay state kind "ai-sdk" is not "pi-ai"'

    // 1. pi-ai (the default adapter) answers first.
    const first = await turn(undefined, "one", "First?", [])
    expect(first.diagnostics).toEqual([])
    const [one] = assistantIds()

    // 2. The provider is given to the AI SDK adapter: the pi-ai answer goes without its signature, reported once.
    const second = await turn("ai-sdk", "two", "Second?", ["--continue", "--model", "loop/m"])
    expect(second.wire).toContain("Answer one.")
    expect(second.wire).not.toContain(signatureOf(api, "one"))
    expect(second.diagnostics).toEqual([line(one!, piAiRefused)])
    const [, two] = assistantIds()

    // 3. Still ai-sdk: its own answer replays natively with its signature; the pi-ai one is still neutral.
    const third = await turn("ai-sdk", "three", "Third?", ["--continue", "--model", "loop/m"])
    expect(third.wire).toContain("Answer two.")
    expect(third.wire).not.toContain(signatureOf(api, "one"))
    if (aiSdkSigns) expect(third.wire).toContain(signatureOf(api, "two"))
    expect(third.diagnostics).toEqual([line(one!, piAiRefused)])
    const [, , three] = assistantIds()

    // 4. Back to pi-ai: its own answer natively again, both ai-sdk answers neutral, each reported once.
    const fourth = await turn("pi-ai", "four", "Fourth?", ["--continue", "--model", "loop/m"])
    expect(fourth.wire).toContain(signatureOf(api, "one"))
    expect(fourth.wire).toContain("Answer two.")
    expect(fourth.wire).toContain("Answer three.")
    expect(fourth.wire).not.toContain(signatureOf(api, "two"))
    expect(fourth.wire).not.toContain(signatureOf(api, "three"))
    expect(fourth.diagnostics).toEqual([line(two!, aiSdkRefused), line(three!, aiSdkRefused)])

    // doctor judges each message by its own adapter's codec: all four replay natively under the adapter that wrote it.
    const doctor = await turnlog(["doctor"], { cwd, env })
    expect(doctor.stdout).toContain("4 replay natively, 0 degrade")
    expect(doctor.stdout).toContain(
      "  written by 2 adapters: pi-ai wrote 2 messages, ai-sdk 2; a request under one sends the others' messages provider-neutral (INVALID_REPLAY_STATE once per message)\n  ok\n",
    )

    // The page marks each degraded message in the turn of the move, as stderr reported it, and names each turn's adapter.
    const [session] = sessionIds(home)
    const page = (await turnlog(["export", session!, "--html"], { cwd, env })).stdout
    const marks = [...page.matchAll(/<section class="[^"]*" id="turn-(\d)"|<div class="who">INVALID_REPLAY_STATE<\/div><p>(.*?)<\/p>/g)]
      .map((m) => m[1] ?? m[2])
    const moved = (id: string, from: string, to: string) =>
      `Message <code>${id}</code> (loop/m), written by the ${from} adapter, is sent by the ${to} adapter from this turn on as provider-neutral content: replay state kind &quot;${from}&quot; is not &quot;${to}&quot;`
    expect(marks).toEqual(["1", "2", moved(one!, "pi-ai", "ai-sdk"), "3", "4", moved(two!, "ai-sdk", "pi-ai"), moved(three!, "ai-sdk", "pi-ai")])
    expect([...page.matchAll(/<div class="meta">[^<]*<time[^<]*<\/time>[^<]* · (adapters? [\w-]+(?:, [\w-]+)*)/g)].map((m) => m[1])).toEqual([
      "adapter pi-ai",
      "adapter ai-sdk",
      "adapter ai-sdk",
      "adapter pi-ai",
    ])
  })
})
