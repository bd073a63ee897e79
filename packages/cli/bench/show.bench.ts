/**
 * `show` memory benchmark: peak RSS of the real `turnlog show` as a
 * subprocess, on a 10,000-turn session beside a 10-turn one (JSONL store);
 * then the same for `turnlog export --html` (the page on stdout).
 * Each turn is what a streamed text answer leaves: turn start, the prompt, the
 * request, 20 raw chunks, the assembled message, turn end. The two are run
 * alternately over 3 rounds; medians; the ratio is 10,000 turns / 10 turns
 * (target ≤ 1.3: memory follows the longest turn, not the session).
 *
 * The peak is the child's own `maxRSS` (from `process.resourceUsage()` at
 * exit, written to stderr by a module preloaded with `--import`); the launcher
 * runs the built command, so run `npm run build` first (a stale build is
 * reported and the sources run through tsx, which costs memory of its own).
 *
 * Run: `npm run bench -- show`.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Context, Effect, Layer } from "effect"
import { MessageId, type SessionId, SessionLog } from "@turnlog/protocol"
import { layerJsonl } from "@turnlog/store/Jsonl"
import { SessionStore } from "@turnlog/store/SessionStore"

const BIN = fileURLToPath(new URL("../bin/turnlog.js", import.meta.url))
const ROUNDS = 3
const CHUNKS = 20
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const turn = (n: number): ReadonlyArray<SessionLog.EventInput> => {
  const deltas = Array.from({ length: CHUNKS }, (_, i) => `part ${i} of answer ${n}, with a few more words. `)
  return [
    { type: "turn/start", data: {} },
    {
      type: "user/message",
      data: { message: { id: MessageId.make(`u${n}`), role: "user", content: [{ type: "text", text: `question ${n}` }], source: { kind: "user" } } },
    },
    { type: "request/start", data: { provider: "turnlog", model: "scripted" } },
    { type: "assistant/chunk", data: { chunk: { type: "block-start", index: 0, blockType: "text" } } },
    ...deltas.map((text): SessionLog.EventInput => ({ type: "assistant/chunk", data: { chunk: { type: "text-delta", index: 0, text } } })),
    { type: "assistant/chunk", data: { chunk: { type: "finish", reason: { kind: "stop" } } } },
    {
      type: "assistant/message",
      data: {
        message: {
          id: MessageId.make(`a${n}`),
          role: "assistant",
          content: [{ type: "text", text: deltas.join("") }],
          source: { kind: "model", provider: "turnlog", model: "scripted" },
        },
        finish: { kind: "stop" },
      },
    },
    { type: "turn/end", data: { reason: "completed" } },
  ]
}

/** A home holding one session of `turns` turns, written through the JSONL store. */
const makeHome = (turns: number): Promise<{ readonly home: string; readonly id: SessionId; readonly bytes: number }> => {
  const home = mkdtempSync(join(tmpdir(), `turnlog-bench-show-${turns}-`))
  return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const store = Context.get(yield* Layer.build(layerJsonl({ home })), SessionStore)
    const id = yield* store.create({ cwd: home })
    let seq = 1
    for (let n = 1; n <= turns; n++) {
      const events = SessionLog.stamp(seq, turn(n), new Date().toISOString())
      seq += events.length
      yield* store.append(id, events)
      if (n % 100 === 0 || n === turns) yield* store.flush(id)
    }
    return { home, id, bytes: statSync(join(home, "sessions", `${id}.jsonl`)).size }
  })))
}

const PEAK = `data:text/javascript,${
  encodeURIComponent(`process.on("exit", () => { process.stderr.write("\\nmaxrss " + process.resourceUsage().maxRSS + "\\n") })`)
}`

/** Peak RSS (MB) of `turnlog show <id>` (or another command given `id`), and what it printed. */
const peak = (home: string, id: string, command: ReadonlyArray<string> = ["show", id]): { readonly mb: number; readonly lines: number } => {
  const run = spawnSync(process.execPath, ["--import", PEAK, BIN, "--home", home, ...command], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: { ...process.env, TURNLOG_HOME: home },
  })
  const match = /maxrss (\d+)/.exec(run.stderr)
  if (run.status !== 0 || match === null) throw new Error(`${command[0]} failed (${run.status}): ${run.stderr}`)
  if (run.stderr.includes("running from source")) process.stderr.write("note: the build is stale; figures include tsx\n")
  return { mb: Number(match[1]) / 1024, lines: run.stdout.split("\n").length }
}

const small = await makeHome(10)
const large = await makeHome(10_000)
try {
  const smallRuns: Array<number> = []
  const largeRuns: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    smallRuns.push(peak(small.home, small.id).mb)
    const big = peak(large.home, large.id)
    if (big.lines < 10_000 * 7) throw new Error(`the large transcript is short: ${big.lines} lines`)
    largeRuns.push(big.mb)
  }
  const s = median(smallRuns)
  const l = median(largeRuns)
  console.log(`show, 10 turns (${(small.bytes / 1024).toFixed(0)} KB log):        peak RSS ${s.toFixed(1)} MB`)
  console.log(`show, 10,000 turns (${(large.bytes / 1048576).toFixed(0)} MB log): peak RSS ${l.toFixed(1)} MB`)
  console.log(`ratio 10,000 / 10 turns: ${(l / s).toFixed(2)} (target ≤ 1.3)`)
  const smallPages: Array<number> = []
  const largePages: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    smallPages.push(peak(small.home, small.id, ["export", small.id, "--html"]).mb)
    const page = peak(large.home, large.id, ["export", large.id, "--html"])
    if (page.lines < 10_000) throw new Error(`the large page is short: ${page.lines} lines`)
    largePages.push(page.mb)
  }
  const sp = median(smallPages)
  const lp = median(largePages)
  console.log(`export --html, 10 turns:     peak RSS ${sp.toFixed(1)} MB`)
  console.log(`export --html, 10,000 turns: peak RSS ${lp.toFixed(1)} MB`)
  console.log(`ratio 10,000 / 10 turns: ${(lp / sp).toFixed(2)} (target ≤ 1.3)`)
} finally {
  rmSync(small.home, { recursive: true, force: true })
  rmSync(large.home, { recursive: true, force: true })
}
