// edit_file through the command line (in-process): `turnlog run --allow-tools` with a
// model that asks for an edit whose passage is absent, one whose passage is
// not unique, and one that replaces; each refusal is said on stderr and
// changes nothing, the replacement is shown as a diff and written.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { turnlog } from "./support/inProcess.js"
import { removeTempDirs, tempDir } from "./support/turnlog.js"

afterAll(removeTempDirs)

const call = (index: number, id: string, args: object) => {
  const text = JSON.stringify(args)
  return [
    { type: "block-start", index, blockType: "tool-call" },
    { type: "tool-call-delta", index, id, name: "edit_file", argumentsDelta: text },
    { type: "block-end", index, block: { type: "tool-call", id, name: "edit_file", arguments: text } },
  ]
}
const answer = (t: string) => [
  { type: "block-start", index: 0, blockType: "text" },
  { type: "text-delta", index: 0, text: t },
  { type: "block-end", index: 0, block: { type: "text", text: t } },
  { type: "finish", reason: { kind: "stop" } },
]
const SCRIPT = [
  [
    ...call(0, "call_1", { path: "list.txt", old_text: "tea", new_text: "coffee" }),
    ...call(1, "call_2", { path: "list.txt", old_text: "milk", new_text: "oat milk" }),
    ...call(2, "call_3", { path: "list.txt", old_text: "bread\n", new_text: "rye bread\n" }),
    { type: "finish", reason: { kind: "tool-calls" } },
  ],
  answer("Edited."),
]

describe("edit_file through turnlog run", () => {
  it("refuses an absent and a repeated passage, and replaces a unique one", async () => {
    const home = tempDir("edit-home")
    const cwd = tempDir("edit-cwd")
    writeFileSync(join(cwd, "list.txt"), "milk\nbread\nmilk\n")
    const script = join(home, "model.jsonl")
    writeFileSync(script, SCRIPT.map((c) => JSON.stringify(c)).join("\n") + "\n")

    const result = await turnlog(["--home", home, "run", "--allow-tools", "fix the list"], { cwd, env: { TURNLOG_SCRIPTED_MODEL: script } })

    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("Edited.\n")
    const said = result.stderr.split("\n")
    expect(said).toContain(
      "turnlog: tool edit_file failed: old_text does not occur in list.txt: read the file again and copy the passage exactly",
    )
    expect(said).toContain(
      "turnlog: tool edit_file failed: old_text occurs twice in list.txt: include more of the surrounding text to make it unique, or set replace_all",
    )
    const diff = said.indexOf("turnlog: tool edit_file done: edited list.txt: 1 replacement")
    expect(diff, result.stderr).toBeGreaterThan(0)
    expect(said.slice(diff + 1, diff + 8)).toEqual([
      "  --- a/list.txt",
      "  +++ b/list.txt",
      "  @@ -1,3 +1,3 @@",
      "   milk",
      "  -bread",
      "  +rye bread",
      "   milk",
    ])
    expect(readFileSync(join(cwd, "list.txt"), "utf8")).toBe("milk\nrye bread\nmilk\n")
  })
})
