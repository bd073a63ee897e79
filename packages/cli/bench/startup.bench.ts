/**
 * Start-up benchmark: the wall time of the real `turnlog` launcher, from its
 * start to its exit, beside bare `node -e 0` started the same way in the same
 * run (the floor: Node's own start-up), and the ratio of the two. Cases:
 * `turnlog --version`; `turnlog sessions` on an empty home; `turnlog acp`
 * until its answer to `initialize` (the time an editor waits before it can
 * open a session; the process is then closed, untimed), and, for what comes
 * after, until its answer to a `session/new` sent with it (no model is
 * configured, so the answer is `auth_required`: the time the whole agent takes
 * to load and serve; no target).
 *
 * Floor and case alternate in pairs (floor, case, case, floor: whichever pays
 * for running second does so equally), after a warm-up; the figures are the
 * medians, and the ratio is the median of the per-pair ratios, so a slow
 * stretch of a shared machine disturbs both sides of a pair alike.
 * Targets: `--version` ≤ 2.5, `sessions` ≤ 3.5, `acp` initialize ≤ 3.
 *
 * It measures the build (`packages/cli/dist`, made by `npm ci` and
 * `npm run build`); without a current one the launcher runs the sources, which
 * is said first. Run: `npm run bench -- startup`.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const BIN = fileURLToPath(new URL("../bin/turnlog.js", import.meta.url))
const DIST = fileURLToPath(new URL("../dist/", import.meta.url))
const WARMUP = 2
const PAIRS = Number(process.env.TURNLOG_BENCH_PAIRS ?? 10)

const home = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-bench-startup-")))
const emptyHome = join(home, "empty")
const acpHome = join(home, "acp")

// No provider keys and no TURNLOG_* settings of the machine, and no loader options of this process.
const env: Record<string, string> = {}
for (const [key, value] of Object.entries(process.env)) {
  if (value !== undefined && !/_API_KEY$|^TURNLOG_|^NODE_OPTIONS$/.test(key)) env[key] = value
}

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly home: string
  /** The ratio to stay under; none for a figure reported for what it is. */
  readonly target?: number
  /** Written to stdin; the case ends at the first stdout line that `answered` accepts (else at exit). */
  readonly input?: string
  readonly answered?: (line: string) => boolean
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
})

const SESSION_NEW = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: home, mcpServers: [] } })

const answers = (line: string, id: number): boolean => line.startsWith("{") && (JSON.parse(line) as { id?: unknown }).id === id

const cases: ReadonlyArray<Case> = [
  { name: "turnlog --version", args: [BIN, "--version"], home: emptyHome, target: 2.5 },
  { name: "turnlog sessions (empty home)", args: [BIN, "sessions"], home: emptyHome, target: 3.5 },
  {
    name: "turnlog acp, to the answer to initialize",
    args: [BIN, "acp"],
    home: acpHome,
    target: 3,
    input: `${INITIALIZE}\n`,
    answered: (line) => answers(line, 0),
  },
  {
    name: "turnlog acp, to the answer to session/new",
    args: [BIN, "acp"],
    home: acpHome,
    input: `${INITIALIZE}\n${SESSION_NEW}\n`,
    answered: (line) => answers(line, 1),
  },
]

/** Milliseconds from the start to the exit (or to the answer), and what went to stderr. */
const once = (args: ReadonlyArray<string>, home: string, input?: string, answered?: (line: string) => boolean) =>
  new Promise<{ ms: number; stderr: string }>((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, args, { env: { ...env, TURNLOG_HOME: home }, stdio: "pipe" })
    let stderr = ""
    let stdout = ""
    let ms: number | undefined
    const stop = () => (ms ??= Number(process.hrtime.bigint() - started) / 1e6)
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      if (answered === undefined || ms !== undefined) return
      stdout += text
      const lines = stdout.split("\n")
      stdout = lines.pop() ?? ""
      if (lines.some(answered)) {
        stop()
        child.stdin.end()
      }
    })
    child.on("error", reject)
    child.on("exit", (code) => {
      if (answered === undefined) stop()
      if (ms === undefined || (answered === undefined && code !== 0)) {
        reject(new Error(`${args.slice(1).join(" ")} ended with ${code} without an answer: ${stderr}`))
      } else resolve({ ms, stderr })
    })
    if (input !== undefined) child.stdin.write(input)
    else child.stdin.end()
  })

const floor = () => once(["-e", "0"], home)
const subject = (c: Case) => once(c.args, c.home, c.input, c.answered)

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const buildNote = (): string => {
  const made = statSync(join(DIST, "main.js"), { throwIfNoEntry: false })
  if (made === undefined) return "no build in packages/cli/dist: these are the sources' figures (npm run build)"
  const inputs = JSON.parse(readFileSync(join(DIST, "inputs.json"), "utf8")) as ReadonlyArray<string>
  const cli = fileURLToPath(new URL("../", import.meta.url))
  const stale = inputs.find((input) => (statSync(join(cli, input), { throwIfNoEntry: false })?.mtimeMs ?? Infinity) > made.mtimeMs)
  return stale === undefined ? "from the build in packages/cli/dist" : `the build is stale (${stale}): these are the sources' figures (npm run build)`
}

try {
  console.log(`start-up, ${buildNote()}; ${PAIRS} pairs per case, wall time from start to exit (acp: to the answer)`)
  console.log("| case | median | `node -e 0` (floor) | ratio | target |")
  console.log("|---|---|---|---|---|")
  for (const c of cases) {
    for (let i = 0; i < WARMUP; i++) {
      await floor()
      await subject(c)
    }
    const floors: Array<number> = []
    const subjects: Array<number> = []
    const ratios: Array<number> = []
    for (let i = 0; i < PAIRS; i++) {
      const order = i % 2 === 0 ? [floor, () => subject(c)] : [() => subject(c), floor]
      const first = await order[0]!()
      const second = await order[1]!()
      const [f, s] = i % 2 === 0 ? [first.ms, second.ms] : [second.ms, first.ms]
      floors.push(f)
      subjects.push(s)
      ratios.push(s / f)
    }
    const ratio = median(ratios)
    console.log(
      `| ${c.name} | ${median(subjects).toFixed(0)} ms | ${median(floors).toFixed(0)} ms | ${ratio.toFixed(2)} | ${
        c.target === undefined ? "—" : `≤ ${c.target} ${ratio <= c.target ? "ok" : "OVER"}`
      } |`,
    )
  }
} finally {
  rmSync(home, { recursive: true, force: true })
}
