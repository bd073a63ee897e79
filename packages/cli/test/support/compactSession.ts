/**
 * The session both tiers' compaction tests start from (`Compact.test.ts` in
 * process, `Compact.e2e.test.ts` through the binary): three long answered
 * turns on the loopback provider, in a fresh home.
 */
import { expect } from "vitest"
import type { Loopback } from "@turnlog/testkit"
import { loopbackHome } from "./loopbackHome.js"
import { type Outcome, tempDir } from "./turnlog.js"

/** `turnlog <args>` run one way or the other: in process or as the binary. */
export type Run = (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Readonly<Record<string, string>> },
) => Promise<Outcome>

/** 500 words, each `label` and its number. */
const long = (label: string) => Array.from({ length: 500 }, (_, i) => `${label}${i}`).join(" ")

/** A session of three long answered turns on the loopback provider over `api`, in a fresh home. */
export const threeLongTurns = async (server: Loopback.Server, turnlog: Run, label: string, api: Loopback.Api) => {
  const { home, env } = loopbackHome(server, {
    model: "local/small",
    providers: {
      local: {
        api,
        models: [{ id: "small", contextWindow: 16384, maxTokens: 4096 }],
      },
    },
    compaction: { keepRecentTokens: 2000 },
  }, "compact")
  const cwd = tempDir(`${label}-cwd`)
  for (let i = 1; i <= 3; i++) {
    server.enqueue({ blocks: [{ type: "text", text: `Answer ${i}. ${long(`a${i}x`)}` }] })
    const args = i === 1 ? ["run", `Question ${i}. ${long(`q${i}x`)}`] : ["run", "--continue", `Question ${i}. ${long(`q${i}x`)}`]
    expect((await turnlog(args, { cwd, env })).code).toBe(0)
  }
  return { home, cwd, env }
}
