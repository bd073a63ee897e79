/**
 * The store benchmark's many-writer workload on PostgreSQL: `WRITERS`
 * processes (8) each append `EVENTS / WRITERS` events to a session of their
 * own, in batches of 50 with a flush after each, all started together;
 * events/s over the wall time from the start until the last one is done.
 * Beside it, in the same run and alternating with it, the floor: as many
 * processes each sending the same batches as one bare multi-row INSERT per
 * 50 through the same driver, into a table with the same key. The ratio is
 * store / floor in events/s (the goal is ≥ 0.5).
 */
import { fileURLToPath } from "node:url"
import { spawn } from "node:child_process"
import { EVENTS } from "./harness.js"

const WRITERS = 8
const ROUNDS = 3
const script = fileURLToPath(new URL("./writer.ts", import.meta.url))

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/**
 * Starts `WRITERS` writer processes, lets them go together once all are ready: the wall time until
 * the last is done, and the CPU time the writers spent (what a loaded machine shares out).
 */
const round = async (mode: "store" | "floor", url: string, schema: string, each: number): Promise<{ readonly ms: number; readonly cpu: number }> => {
  const children = Array.from({ length: WRITERS }, () => {
    const child = spawn(process.execPath, ["--conditions=@turnlog/source", "--import", "tsx", script, mode, url, schema, String(each)], {
      stdio: ["pipe", "pipe", "inherit"],
    })
    let out = ""
    const cpu = () => Number(/^done \S+ (\S+)$/m.exec(out)?.[1] ?? NaN)
    const waiters: Array<() => void> = []
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      out += text
      waiters.splice(0).forEach((wake) => wake())
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => (waiters.splice(0).forEach((w) => w()), resolve(code))))
    const said = async (word: string) => {
      while (!out.split("\n").some((line) => line.startsWith(word))) {
        if (child.exitCode !== null) throw new Error(`a ${mode} writer exited (${child.exitCode}) before saying ${word}`)
        await new Promise<void>((resolve) => waiters.push(resolve))
      }
    }
    return { child, said, exited, cpu }
  })
  try {
    await Promise.all(children.map((c) => c.said("ready")))
    const started = performance.now()
    for (const c of children) c.child.stdin.write("go\n")
    await Promise.all(children.map((c) => c.said("done")))
    return { ms: performance.now() - started, cpu: children.reduce((sum, c) => sum + c.cpu(), 0) }
  } finally {
    for (const c of children) if (c.child.exitCode === null) c.child.kill("SIGKILL")
    await Promise.all(children.map((c) => c.exited))
  }
}

/** Runs the workload beside its floor and prints both and the ratio. `prepare` empties the floor's table. */
export const many = async (url: string, schema: string, prepare: () => Promise<unknown>): Promise<void> => {
  const each = Math.max(50, Math.floor(EVENTS / WRITERS / 50) * 50)
  const total = each * WRITERS
  const stores: Array<number> = []
  const floors: Array<number> = []
  const storeCpu: Array<number> = []
  const floorCpu: Array<number> = []
  for (let r = 0; r < ROUNDS; r++) {
    await prepare()
    const floor = await round("floor", url, schema, each)
    const store = await round("store", url, schema, each)
    floors.push(floor.ms)
    floorCpu.push(floor.cpu)
    stores.push(store.ms)
    storeCpu.push(store.cpu)
  }
  const rate = (ms: number) => Math.round(total / (ms / 1000))
  const [store, floor] = [median(stores), median(floors)]
  console.log(
    `postgres ${WRITERS} writers: ${total} events (${each} each, flush every 50): ${rate(store)} events/s; ` +
      `floor (${WRITERS} processes, the driver's multi-row INSERT per 50) ${rate(floor)} events/s; ` +
      `ratio ${(rate(store) / rate(floor)).toFixed(2)} (goal ≥ 0.5)`,
  )
  const perEvent = (cpu: Array<number>) => ((median(cpu) * 1000) / total).toFixed(0)
  console.log(
    `postgres ${WRITERS} writers' CPU: store ${perEvent(storeCpu)} µs/event, floor ${perEvent(floorCpu)} µs/event; ` +
      `ratio ${(median(storeCpu) / median(floorCpu)).toFixed(2)}`,
  )
  console.log(`postgres   rounds (ms) store [${stores.map((x) => x.toFixed(0)).join(", ")}] floor [${floors.map((x) => x.toFixed(0)).join(", ")}]`)
}
