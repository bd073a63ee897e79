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
 * Then, beside pi (`@earendil-works/pi-coding-agent`, the coding agent on the
 * same provider library) instead of the floor: `turnlog run` and `pi -p`, each
 * from its start until a loopback provider (openai-completions) has its first
 * request, and until it has exited after the answer (a one-line text: the
 * whole of a short `run` as its user waits for it; no target). Both
 * get the same prompt and model route, and each run a fresh empty home
 * (turnlog: `--home` holding a config whose provider is the loopback; pi: its
 * agent directory, `PI_CODING_AGENT_DIR`, holding a `models.json` that says the
 * same, with `PI_OFFLINE=1` so it makes no other request). pi turns on Node's
 * compile cache and turnlog's launcher its own code cache, both kept in the
 * temp directory across runs (warm after the warm-up, as for their users; a
 * fresh home does not empty them). pi is pinned to one version and
 * installed on first use into a folder of the temp directory; it needs a newer
 * Node than turnlog does, which, when the running one is older, is fetched from
 * the npm registry (`node-<platform>-<arch>`) into another. turnlog runs under
 * the running Node, and again under pi's for the comparison on equal Node.
 * Without pi (no registry) that is said in one line and nothing is compared.
 * Target: `run` to the first request ≤ 0.7 × pi's, on the running Node; the row
 * on pi's Node is reported for what it is.
 *
 * It measures the build (`packages/cli/dist`, made by `npm ci` and
 * `npm run build`); without a current one the launcher runs the sources, which
 * is said first. Run: `npm run bench -- startup`.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Loopback } from "@turnlog/testkit"

const BIN = fileURLToPath(new URL("../bin/turnlog.js", import.meta.url))
const DIST = fileURLToPath(new URL("../dist/", import.meta.url))
const WARMUP = 2
const PAIRS = Number(process.env.TURNLOG_BENCH_PAIRS ?? 10)

const home = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-bench-startup-")))
const emptyHome = join(home, "empty")
const acpHome = join(home, "acp")

// No provider keys, no TURNLOG_* or PI_* settings of the machine, and no loader options of this process.
const env: Record<string, string> = {}
for (const [key, value] of Object.entries(process.env)) {
  if (value !== undefined && !/_API_KEY$|^TURNLOG_|^PI_|^NODE_OPTIONS$/.test(key)) env[key] = value
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
  const made = statSync(join(DIST, "main.cjs"), { throwIfNoEntry: false })
  if (made === undefined) return "no build in packages/cli/dist: these are the sources' figures (npm run build)"
  const inputs = JSON.parse(readFileSync(join(DIST, "inputs.json"), "utf8")) as ReadonlyArray<string>
  const cli = fileURLToPath(new URL("../", import.meta.url))
  const stale = inputs.find((input) => (statSync(join(cli, input), { throwIfNoEntry: false })?.mtimeMs ?? Infinity) > made.mtimeMs)
  return stale === undefined ? "from the build in packages/cli/dist" : `the build is stale (${stale}): these are the sources' figures (npm run build)`
}

/** pi, the version compared with, and the oldest Node it runs on. */
const PI = { name: "@earendil-works/pi-coding-agent", version: "1.6.0", node: [22, 19] } as const
const PROMPT = "Say hello."
const ROUTE = "local/small"
const MODEL = { id: "small", contextWindow: 128_000, maxTokens: 4096, reasoning: false }
const KEY = { LOCAL_BENCH_KEY: "sk-bench-0123456789" }

/** A command run to its end with what it printed kept; npm gets none of the settings of the `npm run` that started this bench. */
const quietly = (command: string, args: ReadonlyArray<string>, cwd: string): string => {
  const clean = Object.fromEntries(Object.entries(env).filter(([key]) => !/^npm_/i.test(key)))
  const result = spawnSync(command, args, { cwd, env: clean, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  if (result.status === 0) return result.stdout
  const lines = result.stderr?.trim().split("\n") ?? []
  const reason = result.error?.message || lines.find((line) => /err/i.test(line)) || lines[0] || `exit ${result.status}`
  throw new Error(`${command} ${args.join(" ")} failed: ${reason}`)
}

/** A folder of the temp directory made once by `make` (into a folder of its own, renamed into place when whole) and reused. */
const cachedIn = (name: string, make: (staging: string) => string): string => {
  const dir = join(tmpdir(), name)
  if (existsSync(dir)) return dir
  process.stderr.write(`${name}: made in the temp directory (once)\n`)
  const staging = mkdtempSync(join(tmpdir(), `${name}-`))
  try {
    renameSync(make(staging), dir)
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return dir
}

const runsPi = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major > PI.node[0] || (major === PI.node[0] && minor >= PI.node[1])
}

/** A Node that runs pi: this one if it can, else the registry's latest of pi's line for this platform, fetched once. */
const piNode = (): string => {
  if (runsPi(process.version)) return process.execPath
  const line = PI.node[0]
  const dir = cachedIn(`turnlog-bench-node-${line}`, (staging) => {
    const tarball = quietly("npm", ["pack", `node-${process.platform}-${process.arch}@${line}`], staging).trim().split("\n").pop()!
    quietly("tar", ["xzf", tarball], staging)
    return join(staging, "package")
  })
  const node = join(dir, "bin", "node")
  const version = quietly(node, ["--version"], dir).trim()
  if (!runsPi(version)) throw new Error(`the Node fetched for pi is ${version}, older than ${PI.node.join(".")}`)
  return node
}

/** pi's command, installed once at its pinned version. */
const piCli = (): string => {
  const dir = cachedIn(`turnlog-bench-pi-${PI.version}`, (staging) => {
    const prefix = join(staging, "prefix")
    quietly("npm", ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", `${PI.name}@${PI.version}`], staging)
    return prefix
  })
  const pkg = join(dir, "node_modules", ...PI.name.split("/"))
  const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string; bin: { pi: string } }
  if (manifest.version !== PI.version) throw new Error(`the cached pi is ${manifest.version}, not ${PI.version}`)
  return join(pkg, manifest.bin.pi)
}

/** How one side is started in a fresh home `dir`: the arguments after node, and the environment. */
type Side = (dir: string, server: Loopback.Server) => { readonly args: ReadonlyArray<string>; readonly env: Record<string, string> }

const turnlogSide: Side = (dir, server) => {
  const provider = { api: "openai-completions", baseUrl: server.baseUrl("openai-completions"), apiKeyEnv: "LOCAL_BENCH_KEY", models: [MODEL] }
  writeFileSync(join(dir, "config.json"), JSON.stringify({ providers: { local: provider } }))
  return { args: [BIN, "run", "--home", dir, "--model", ROUTE, PROMPT], env: { ...env, ...KEY, HOME: dir } }
}

const piSide = (cli: string): Side => (dir, server) => {
  const agent = join(dir, "agent")
  mkdirSync(agent)
  const provider = { api: "openai-completions", baseUrl: server.baseUrl("openai-completions"), apiKey: "$LOCAL_BENCH_KEY", models: [MODEL] }
  writeFileSync(join(agent, "models.json"), JSON.stringify({ providers: { local: provider } }))
  return { args: [cli, "-p", "--model", ROUTE, PROMPT], env: { ...env, ...KEY, HOME: dir, PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1" } }
}

/** Milliseconds from the start until the loopback provider has the request, and until the process has exited after its answer. */
const firstRequest = async (server: Loopback.Server, node: string, side: Side, cwd: string): Promise<{ request: number; exit: number }> => {
  const dir = mkdtempSync(join(home, "run-"))
  const { args, env: vars } = side(dir, server)
  server.enqueue({ blocks: [{ type: "text", text: "Hello." }] })
  const before = server.requests().length
  const started = process.hrtime.bigint()
  const child = spawn(node, args, { cwd, env: vars, stdio: ["ignore", "ignore", "pipe"] })
  const limit = setTimeout(() => child.kill(), 60_000)
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
  let exit = 0
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject)
    child.on("exit", (code) => {
      exit = Number(process.hrtime.bigint() - started) / 1e6
      resolve(code)
    })
  }).finally(() => clearTimeout(limit))
  const arrived = server.waitForRequests(before + 1).then(() => Number(process.hrtime.bigint() - started) / 1e6)
  arrived.catch(() => undefined) // a run that ends without a request fails below; the server closes with the waiter left
  const failed = (code: number | null) => new Error(`${args.slice(1).join(" ")} ended with ${code}: ${stderr}`)
  const ms = await Promise.race([arrived, exited.then((code) => Promise.reject(failed(code)))])
  const code = await exited
  if (code !== 0) throw failed(code)
  return { request: ms, exit }
}

/** turnlog under `node` beside pi: pairs (turnlog, pi, pi, turnlog) after a warm-up; medians and the median per-pair ratio, to the request and to the exit. */
const besidePi = async (server: Loopback.Server, node: string, pi: { node: string; side: Side }, cwd: string) => {
  const turnlog = () => firstRequest(server, node, turnlogSide, cwd)
  const other = () => firstRequest(server, pi.node, pi.side, cwd)
  for (let i = 0; i < WARMUP; i++) {
    await turnlog()
    await other()
  }
  const figures = { request: { turnlog: [] as Array<number>, pi: [] as Array<number>, ratio: [] as Array<number> } }
  const exits = { turnlog: [] as Array<number>, pi: [] as Array<number>, ratio: [] as Array<number> }
  for (let i = 0; i < PAIRS; i++) {
    const order = i % 2 === 0 ? [turnlog, other] : [other, turnlog]
    const first = await order[0]!()
    const second = await order[1]!()
    const [t, p] = i % 2 === 0 ? [first, second] : [second, first]
    for (const [into, key] of [[figures.request, "request"], [exits, "exit"]] as const) {
      into.turnlog.push(t[key])
      into.pi.push(p[key])
      into.ratio.push(t[key] / p[key])
    }
  }
  const medians = (of: typeof exits) => ({ turnlog: median(of.turnlog), pi: median(of.pi), ratio: median(of.ratio) })
  return { request: medians(figures.request), exit: medians(exits) }
}

const piSection = async () => {
  let pi: { node: string; side: Side }
  try {
    const node = piNode()
    pi = { node, side: piSide(piCli()) }
  } catch (error) {
    console.log(`pi ${PI.version} could not be installed, so turnlog run is not compared with it: ${error instanceof Error ? error.message : String(error)}`)
    return
  }
  const piVersion = quietly(pi.node, ["--version"], home).trim()
  const server = await Loopback.start()
  const cwd = join(home, "project")
  mkdirSync(cwd)
  try {
    const rows: Array<{ name: string; node: string; target?: number }> = [
      { name: `turnlog run (Node ${process.version})`, node: process.execPath, target: 0.7 },
    ]
    if (pi.node !== process.execPath) rows.push({ name: `turnlog run, on pi's Node (${piVersion})`, node: pi.node })
    const measured: Array<Awaited<ReturnType<typeof besidePi>>> = []
    for (const row of rows) measured.push(await besidePi(server, row.node, pi, cwd))
    const table = (what: "request" | "exit", heading: string, column: string, target: boolean) => {
      console.log(heading)
      console.log(`| case | median | pi, ${column} | ratio | target |`)
      console.log("|---|---|---|---|---|")
      rows.forEach((row, i) => {
        const figures = measured[i]![what]
        const goal = target ? row.target : undefined
        console.log(
          `| ${row.name}, ${column} | ${figures.turnlog.toFixed(0)} ms | ${figures.pi.toFixed(0)} ms | ${figures.ratio.toFixed(2)} | ${
            goal === undefined ? "—" : `≤ ${goal} ${figures.ratio <= goal ? "ok" : "OVER"}`
          } |`,
        )
      })
    }
    table(
      "request",
      `\nto the first provider request, beside pi ${PI.version} (Node ${piVersion}) on the same loopback provider; ${PAIRS} pairs per case, wall time from start until the provider has the request`,
      "to the first provider request",
      true,
    )
    table("exit", "\nthe same runs, from start until the process has exited after the answer (a one-line text)", "to its exit", false)
  } finally {
    await server.close()
  }
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
  await piSection()
} finally {
  rmSync(home, { recursive: true, force: true })
}
