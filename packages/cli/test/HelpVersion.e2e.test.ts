// `turnlog help <command>` answers as `turnlog <command> --help`, and `-v` and
// `-V` as `--version`, through the real binary.
import { afterAll, describe, expect, it } from "vitest"
import { removeTempDirs, tempDir, turnlog } from "./support/turnlog.js"
import { VERSION } from "../src/Version.js"

afterAll(removeTempDirs)

describe("help and the version", () => {
  const cwd = tempDir("help-cwd")

  it("turnlog help run is turnlog run --help", async () => {
    const [aliased, flagged] = await Promise.all([turnlog(["help", "run"], { cwd }), turnlog(["run", "--help"], { cwd })])
    expect(aliased.code).toBe(0)
    expect(aliased.stdout).toContain("--allow-tools")
    expect(aliased).toEqual(flagged)
  })

  it.each([["-v"], ["-V"]])("turnlog %s prints the version", async (flag) => {
    const result = await turnlog([flag], { cwd })
    expect({ code: result.code, stdout: result.stdout.trim(), stderr: result.stderr }).toEqual({ code: 0, stdout: VERSION, stderr: "" })
  })
})
