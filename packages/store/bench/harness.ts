/**
 * The store benchmark's harness, the same for every engine so their figures
 * read side by side:
 * - append: `EVENTS` `assistant/chunk` events of about 1 KB appended in
 *   batches of 50 with a `flush` after each, as the agent loop does while a
 *   response streams; events/s, beside the engine's floor measured in the same
 *   run, alternating with the store (medians of the rounds);
 * - cold load: `read` of that session through a freshly built layer, every
 *   event decoded and validated through the protocol schemas, beside the
 *   engine's in-run reference (the same data read and `JSON.parse`d with no
 *   validation); the two alternate, with a collection before each; medians;
 *   the ratio is store / reference;
 * - lease takeover: a real subprocess holds a 10-event session's lease and is
 *   SIGKILLed; the time from the kill until this process's `open` succeeds
 *   (it tries every 5 ms, the layer already built).
 * Figures from a machine under shared load are indicative only: the ratios,
 * measured in one run, are what to compare.
 *
 * `TURNLOG_BENCH_EVENTS` lowers the event count for a quick look.
 */
import { Context, Effect, Layer } from "effect"
import type { SessionId, SessionLog } from "@turnlog/protocol"
import { type Service, SessionStore } from "../src/SessionStore.js"
import type { StoreError } from "../src/StoreError.js"
import { spawnChild } from "../test/support/spawn.js"

export const EVENTS = Number(process.env.TURNLOG_BENCH_EVENTS ?? 100_000)
export const BATCH = 50
const LOAD_ROUNDS = 5
const APPEND_ROUNDS = 3

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (xs: ReadonlyArray<number>) => `[${xs.map((x) => x.toFixed(0)).join(", ")}]`

const words = ["the", "parser", "streams", "tokens", '"quoted"', "naïve", "→", "line\nbreak", "{json}", "tab\there"]

/** An `assistant/chunk` event of about 1 KB, with text that needs escaping. */
export const chunkEvent = (seq: number): SessionLog.SessionEvent => {
  let text = ""
  for (let i = 0; text.length < 900; i++) text += words[(seq * 7 + i) % words.length] + " "
  return {
    seq,
    time: new Date(1_750_000_000_000 + seq).toISOString(),
    type: "assistant/chunk",
    data: { chunk: { type: "text-delta", index: 0, text } },
  }
}

/** Each batch as the appender sends it. */
export const batches = (events: ReadonlyArray<SessionLog.SessionEvent>): Array<ReadonlyArray<SessionLog.SessionEvent>> => {
  const out: Array<ReadonlyArray<SessionLog.SessionEvent>> = []
  for (let i = 0; i < events.length; i += BATCH) out.push(events.slice(i, i + BATCH))
  return out
}

export const withStore = <A>(
  layer: Layer.Layer<SessionStore, StoreError>,
  f: (store: Service) => Effect.Effect<A, StoreError>,
): Promise<A> => Effect.runPromise(Effect.scoped(Effect.flatMap(Layer.build(layer), (ctx) => f(Context.get(ctx, SessionStore)))))

export interface Engine {
  readonly name: string
  readonly layer: Layer.Layer<SessionStore, StoreError>
  /** What the floor is, for the printed line. */
  readonly floorIs: string
  /** The same batches written with no store around them; milliseconds. */
  readonly appendFloor: (events: ReadonlyArray<SessionLog.SessionEvent>) => Promise<number>
  readonly referenceIs: string
  /** Reads the session's events with no validation; returns how many. */
  readonly reference: (id: SessionId) => Promise<number>
  /** Bytes a load reads. */
  readonly bytes: (id: SessionId, events: ReadonlyArray<SessionLog.SessionEvent>) => number
  /** `child.ts`'s `<kind> <home>` for a process holding a lease of this store. */
  readonly holder: readonly [string, string]
  readonly targets: { readonly append: number; readonly load: number }
}

const timeIt = async (f: () => Promise<unknown>): Promise<number> => {
  gc()
  const started = performance.now()
  await f()
  return performance.now() - started
}

const appendAll = (layer: Engine["layer"], events: ReadonlyArray<SessionLog.SessionEvent>) =>
  withStore(layer, (store) =>
    Effect.gen(function*() {
      const id = yield* store.create({ cwd: "/bench" })
      const started = performance.now()
      for (const batch of batches(events)) {
        yield* store.append(id, batch)
        yield* store.flush(id)
      }
      return { id, ms: performance.now() - started }
    }))

const append = async (engine: Engine, events: ReadonlyArray<SessionLog.SessionEvent>): Promise<SessionId> => {
  const floors: Array<number> = []
  const stores: Array<number> = []
  let id: SessionId | undefined
  for (let round = 0; round < APPEND_ROUNDS; round++) {
    gc()
    floors.push(await engine.appendFloor(events))
    gc()
    const appended = await appendAll(engine.layer, events)
    stores.push(appended.ms)
    id = appended.id
  }
  const [store, floor] = [median(stores), median(floors)]
  const rate = (t: number) => Math.round(EVENTS / (t / 1000))
  console.log(
    `${engine.name} append: ${EVENTS} events, flush every ${BATCH}: ${store.toFixed(0)} ms, ${rate(store)} events/s ` +
      `(target ≥ ${engine.targets.append}); floor (${engine.floorIs}) ${floor.toFixed(0)} ms, ${rate(floor)} events/s; ` +
      `ratio ${(store / floor).toFixed(2)}`,
  )
  console.log(`${engine.name}   rounds (ms) store ${ms(stores)} floor ${ms(floors)}`)
  return id!
}

const load = async (engine: Engine, id: SessionId, events: ReadonlyArray<SessionLog.SessionEvent>) => {
  const read = () =>
    withStore(engine.layer, (store) =>
      Effect.map(store.read(id), (loaded) => {
        if (loaded.events.length !== EVENTS) throw new Error(`loaded ${loaded.events.length} events`)
        return loaded.events.length
      }))
  if ((await engine.reference(id)) !== EVENTS) throw new Error("the reference read a different number of events")
  await read()
  const stores: Array<number> = []
  const refs: Array<number> = []
  for (let round = 0; round < LOAD_ROUNDS; round++) {
    refs.push(await timeIt(() => engine.reference(id)))
    stores.push(await timeIt(read))
  }
  const mb = engine.bytes(id, events) / 1e6
  const [store, ref] = [median(stores), median(refs)]
  const speed = (t: number) => (mb / (t / 1000)).toFixed(0)
  console.log(
    `${engine.name} cold load: ${EVENTS} events, ${mb.toFixed(1)} MB: ${store.toFixed(0)} ms (${speed(store)} MB/s); ` +
      `reference (${engine.referenceIs}) ${ref.toFixed(0)} ms (${speed(ref)} MB/s); ` +
      `ratio ${(store / ref).toFixed(2)} (target ≤ ${engine.targets.load})`,
  )
  console.log(`${engine.name}   rounds (ms) store ${ms(stores)} reference ${ms(refs)}`)
}

const takeover = async (engine: Engine, events: ReadonlyArray<SessionLog.SessionEvent>) => {
  const small = await withStore(engine.layer, (store) =>
    Effect.gen(function*() {
      const small = yield* store.create({ cwd: "/bench" })
      yield* store.append(small, events.slice(0, 10))
      return small
    }))
  const holder = spawnChild(["hold", ...engine.holder, small])
  try {
    await holder.waitFor((line) => line === "held")
    const taken = await withStore(engine.layer, (store) =>
      Effect.gen(function*() {
        const refused = yield* Effect.either(store.open(small))
        if (refused._tag === "Right" || refused.left._tag !== "SessionLocked") {
          throw new Error(`the holder did not hold the session: ${refused._tag === "Right" ? "opened" : refused.left.message}`)
        }
        const killed = performance.now()
        holder.process.kill("SIGKILL")
        for (;;) {
          const attempt = yield* Effect.either(store.open(small))
          if (attempt._tag === "Right") return performance.now() - killed
          if (attempt.left._tag !== "SessionLocked") return yield* attempt.left
          yield* Effect.sleep(5)
        }
      }))
    console.log(`${engine.name} lease takeover after SIGKILL of the holder process: ${taken.toFixed(0)} ms (the open of a 10-event session included)`)
  } finally {
    await holder.kill()
  }
}

/** Append, cold load and takeover of one engine, printed as they are measured. */
export const run = async (engine: Engine): Promise<void> => {
  const events = Array.from({ length: EVENTS }, (_, i) => chunkEvent(i + 1))
  const id = await append(engine, events)
  await load(engine, id, events)
  await takeover(engine, events)
}
