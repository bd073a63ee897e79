import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { layerJsonl } from "../src/Jsonl.js"
import { batches, chunkEvent, withStore } from "./harness.js"
const home = mkdtempSync(join(tmpdir(), "app-"))
const events = Array.from({ length: 100_000 }, (_, i) => chunkEvent(i + 1))
const bs = batches(events)
const t = performance.now()
await withStore(layerJsonl({ home }), (store) => Effect.gen(function*() {
  const id = yield* store.create({ cwd: home })
  for (const b of bs) { yield* store.append(id, b); yield* store.flush(id) }
}))
console.log("append ms", (performance.now() - t).toFixed(0))
