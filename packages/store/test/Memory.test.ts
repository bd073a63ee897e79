import { Memory } from "../src/index.js"
import { conformance } from "./support/conformance.js"

conformance("memory", () => {
  const storage = Memory.makeStorage()
  return { store: Memory.layerMemoryWith(storage) }
})
