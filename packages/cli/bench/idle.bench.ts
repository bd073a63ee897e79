/**
 * ACP idle release benchmark: a real `turnlog acp` subprocess (node with
 * `--expose-gc`, the scripted model, the JSONL store, `idleReleaseSeconds: 20`
 * — longer than making the 200 takes, so the peak holds them all) driven by
 * the SDK's client. First one session is made, prompted and left
 * to go idle: what one idle server holds (the start). Then 200 sessions are
 * made and prompted, one after another (the peak), and left unused past the
 * release time (the end). At each point: the server's open file descriptors
 * (`/proc/<pid>/fd`), the lock files in the home (held leases), and the heap in
 * use after a full collection, which the server reports on stderr when sent
 * SIGUSR2.
 * Targets: at the end, open files and held leases back to the start's; heap ≤ 1.10 × the start's.
 *
 * Run: `npm run bench idle`.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable, Writable } from "node:stream"
import * as acp from "@agentclientprotocol/sdk"
import { PiAiScript } from "@turnlog/llm-pi-ai"

const SESSIONS = 200
const BIN = new URL("../bin/turnlog.js", import.meta.url).pathname

const home = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-bench-idle-")))
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-bench-idle-cwd-")))
const IDLE_SECONDS = 20
writeFileSync(join(home, "config.json"), JSON.stringify({ idleReleaseSeconds: IDLE_SECONDS }))
const script = join(home, "model.jsonl")
writeFileSync(
  script,
  Array.from(
    { length: SESSIONS + 1 },
    (_, i) => JSON.stringify(PiAiScript.response([{ type: "text", text: `Answer ${i}: ${"words ".repeat(40)}` }], "stop", { route: "turnlog/scripted" })),
  )
    .join("\n") + "\n",
)

const env: Record<string, string> = {}
for (const [key, value] of Object.entries(process.env)) {
  if (value !== undefined && !/_API_KEY$|^TURNLOG_/.test(key)) env[key] = value
}
const child = spawn(process.execPath, ["--expose-gc", BIN, "acp"], {
  cwd,
  env: { ...env, TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: script },
  stdio: "pipe",
})
let stderr = ""
child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t))
const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const until = async (what: string, test: () => boolean, timeoutMs = 300_000) => {
  const start = Date.now()
  while (!test()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

const openFiles = () => readdirSync(`/proc/${child.pid}/fd`).length
const heldLeases = () => readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".lock")).length
const heapAfterGc = async (): Promise<number> => {
  const from = stderr.length
  const line = /turnlog: memory: heap used (\d+) bytes after a full collection/
  child.kill("SIGUSR2")
  await until("the memory report", () => line.test(stderr.slice(from)), 30_000)
  return Number(line.exec(stderr.slice(from))![1])
}

interface Point {
  readonly files: number
  readonly leases: number
  readonly heap: number
}
const measure = async (): Promise<Point> => ({ files: openFiles(), leases: heldLeases(), heap: await heapAfterGc() })

const writer = (Writable.toWeb(child.stdin) as WritableStream<Uint8Array>).getWriter()
const stream = acp.ndJsonStream(
  new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) }),
  Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
)

const session = async (ctx: acp.ClientContext, i: number) => {
  const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] })
  const answer = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `Question ${i}` }] })
  if (answer.stopReason !== "end_turn") throw new Error(`session ${i}: ${answer.stopReason}`)
}

const points = await acp.client({ name: "bench" })
  .onNotification("session/update", () => undefined)
  .connectWith(stream, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })
    await session(ctx, 0)
    await until("the first session to be let go", () => heldLeases() === 0)
    await sleep(500)
    const start = await measure()
    for (let i = 1; i <= SESSIONS; i++) await session(ctx, i)
    const peak = await measure()
    await until(`all ${SESSIONS} sessions to be let go`, () => heldLeases() === 0)
    // The last release is logged after its lock file goes: let it finish.
    await until("every release to be said", () => (stderr.match(/let go until its next prompt/g) ?? []).length === SESSIONS + 1)
    await sleep(500)
    const end = await measure()
    return { start, peak, end }
  })
await writer.close()
const code = await exited
rmSync(home, { recursive: true, force: true })
rmSync(cwd, { recursive: true, force: true })

const { end, peak, start } = points
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
console.log(`turnlog acp, ${SESSIONS} sessions made and prompted, then unused past idleReleaseSeconds (${IDLE_SECONDS} s); exit code ${code}`)
console.log(`                       start (1 idle)   after ${SESSIONS}   after release`)
console.log(`open files             ${String(start.files).padEnd(17)}${String(peak.files).padEnd(12)}${end.files}`)
console.log(`held leases (.lock)    ${String(start.leases).padEnd(17)}${String(peak.leases).padEnd(12)}${end.leases}`)
console.log(`heap after GC          ${mb(start.heap).padEnd(17)}${mb(peak.heap).padEnd(12)}${mb(end.heap)}`)
const ratio = end.heap / start.heap
console.log(
  `end / start: open files ${end.files - start.files >= 0 ? "+" : ""}${end.files - start.files}, leases ${end.leases - start.leases >= 0 ? "+" : ""}${
    end.leases - start.leases
  }, heap ${ratio.toFixed(3)} (targets: files and leases back to the start's, heap ≤ 1.10): ${
    end.files <= start.files && end.leases <= start.leases && ratio <= 1.1 ? "met" : "NOT met"
  }`,
)
console.log("(figures measured on a shared machine are indicative)")
