// The schemas a PostgreSQL search_path names, read as the server reads them:
// where the store creates its tables when none of them exists yet.
import { describe, expect, it } from "@effect/vitest"
import { schemasIn } from "../src/internal/PgSchema.js"

describe("search_path", () => {
  it("names schemas in order: unquoted ones lower-cased, quoted ones as written, $user as the role", () => {
    expect(schemasIn(`"$user", public`, "alice")).toStrictEqual(["alice", "public"])
    expect(schemasIn(`Agents,"Mixed Case","a""b" , $user`, "bob")).toStrictEqual(["agents", "Mixed Case", `a"b`, "bob"])
    expect(schemasIn(`turnlog`, "bob")).toStrictEqual(["turnlog"])
    expect(schemasIn(``, "bob")).toStrictEqual([])
    expect(schemasIn(`"a,b", c`, "bob")).toStrictEqual(["a,b", "c"])
  })
})
