// The package's surface: its modules, not its internals, and one name per layer.
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { Jsonl, Memory, StoreLayer } from "../src/index.js"
// The SQLite and PostgreSQL layers are their own entries: their drivers are optional peers.
import * as Postgres from "../src/Postgres.js"
import * as Sqlite from "../src/Sqlite.js"

describe("@turnlog/store exports", () => {
  it("hides ./internal/* from other packages", () => {
    const probe = `import("@turnlog/store/internal/Core").then(() => console.log("imported"), (e) => console.log(e.code))`
    const said = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe], {
      cwd: fileURLToPath(new URL("../../agent", import.meta.url)),
      encoding: "utf8",
    })
    expect(said.trim()).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED")
  })

  it("gives each layer one name, in its own module; StoreLayer only selects", () => {
    expect(Object.keys(StoreLayer).sort()).toStrictEqual(["defaultHome", "layer"])
    expect(Object.keys(Jsonl).filter((k) => k.startsWith("layer"))).toStrictEqual(["layerJsonl"])
    expect(Object.keys(Sqlite).filter((k) => k.startsWith("layer"))).toStrictEqual(["layerSqlite"])
    expect(Object.keys(Postgres).filter((k) => k.startsWith("layer"))).toStrictEqual(["layerPostgres"])
    expect(Object.keys(Memory).filter((k) => k.startsWith("layer")).sort()).toStrictEqual(["layerMemory", "layerMemoryWith"])
  })
})
