import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Jsonl } from "../src/index.js"
import { conformance } from "./support/conformance.js"

conformance("jsonl", () => {
  const home = mkdtempSync(join(tmpdir(), "turnlog-store-"))
  return { store: Jsonl.layerJsonl({ home }), cleanup: () => rmSync(home, { recursive: true, force: true }) }
})
