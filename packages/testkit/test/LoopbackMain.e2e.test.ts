/** The loopback as its own process, started the way subprocess tests start it. */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import type { Loopback } from "../src/index.js"
import { MODEL_ID, model, run, user } from "./fixtures/PiAi.js"

const BIN = fileURLToPath(new URL("../bin/loopback.js", import.meta.url))

interface Started {
  readonly child: ChildProcess
  readonly url: string
  readonly baseUrls: Record<Loopback.Api, string>
}

const children: Array<ChildProcess> = []
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL")
})

const spawnLoopback = (args: ReadonlyArray<string>): ChildProcess => {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  children.push(child)
  return child
}

/** Resolves with the first stdout line, parsed. */
const started = (child: ChildProcess): Promise<Started> =>
  new Promise((resolve, reject) => {
    let out = ""
    let err = ""
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()))
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split("\n")[0]
      if (out.includes("\n") && line !== undefined) resolve({ child, ...JSON.parse(line) })
    })
    child.once("exit", (code) => reject(new Error(`loopback exited with ${code}: ${err}`)))
  })

const exited = (child: ChildProcess): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    if (child.exitCode !== null) return resolve({ code: child.exitCode, stderr })
    child.once("exit", (code) => resolve({ code, stderr }))
  })

const script = (content: unknown): string => {
  const path = join(mkdtempSync(join(tmpdir(), "turnlog-loopback-")), "script.json")
  writeFileSync(path, JSON.stringify(content))
  return path
}

describe("the loopback process", () => {
  it("plays its script, reports its requests and takes more replies, then stops on SIGTERM", async () => {
    const child = spawnLoopback([script({ replies: [{ blocks: [{ type: "text", text: "From the script." }] }] })])
    const { url, baseUrls } = await started(child)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(baseUrls).toEqual({
      "openai-completions": `${url}/v1`,
      "anthropic-messages": url,
      "openai-responses": `${url}/v1`,
      "google-generative-ai": `${url}/v1beta`,
    })
    // pi-ai reaches it through the baseUrl the process announced.
    const server = { baseUrl: (api: Loopback.Api) => baseUrls[api] } as Loopback.Server
    expect(model(server, "openai-responses").baseUrl).toBe(`${url}/v1`)
    const first = await run(server, "openai-responses", [user("Hi")])
    expect(first.message.content).toMatchObject([{ type: "text", text: "From the script." }])

    await fetch(`${url}/__loopback/replies`, {
      method: "POST",
      body: JSON.stringify({ blocks: [{ type: "text", text: "Queued later." }] }),
    })
    const second = await run(server, "anthropic-messages", [user("Again")])
    expect(second.message.content).toEqual([{ type: "text", text: "Queued later." }])

    const requests = await (await fetch(`${url}/__loopback/requests`)).json() as Array<Loopback.RecordedRequest>
    expect(requests.map((r) => [r.path, r.model, r.outcome])).toEqual([
      ["/v1/responses", MODEL_ID, "completed"],
      ["/v1/messages", MODEL_ID, "completed"],
    ])

    const exit = exited(child)
    child.kill("SIGTERM")
    expect((await exit).code).toBe(0)
  })

  it("refuses a script that is not a list of replies, saying why", async () => {
    const child = spawnLoopback([script([{ blocks: [{ type: "txt", text: "typo" }] }])])
    const { code, stderr } = await exited(child)
    expect(code).toBe(2)
    expect(stderr).toContain("is not a list of replies")
    expect(stderr).toContain("reply 1")
    expect(stderr).toContain('actual "txt"')
  })
})
