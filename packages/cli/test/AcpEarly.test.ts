/**
 * `turnlog acp`'s early answer to `initialize`: the first frame read from
 * stdin, answered with exactly what the server answers under the same home
 * and config, and every byte read handed over to the server's stream.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { AcpServer } from "@turnlog/acp"
import * as AcpAuthMethod from "../src/AcpAuthMethod.js"
import * as AcpEarly from "../src/AcpEarly.js"
import { resolveSettings } from "../src/Settings.js"
import { VERSION } from "../src/Version.js"

const dir = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-acp-early-")))
const none = { home: Option.none(), config: Option.none(), store: Option.none() } as const

const initialize = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })

/** What `turnlog acp`'s server answers `initialize` with under this environment (as `commands/Acp.ts` makes it). */
const serverAnswer = async (id: string | number, env: Record<string, string>) => {
  const settings = await Effect.runPromise(resolveSettings(none, env, dir))
  return JSON.stringify({ jsonrpc: "2.0", id, result: AcpServer.initializeResponse(VERSION, [AcpAuthMethod.authMethod(settings)]) })
}

/** Runs the early answer over `input` (written in one chunk), returning what it wrote and what it hands over. */
const early = async (input: string, env: Record<string, string>) => {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  let written = ""
  stdout.setEncoding("utf8").on("data", (text: string) => (written += text))
  const done = AcpEarly.answerInitialize(stdin as unknown as NodeJS.ReadStream, stdout, env, dir)
  stdin.write(input)
  await done
  await new Promise((r) => setImmediate(r))
  const handed = AcpEarly.handOver()
  return { written, prefix: new TextDecoder().decode(handed.prefix), answered: handed.answered }
}

describe("the early answer to initialize", () => {
  it("answers the first frame as the server would, and hands over every byte read", async () => {
    const home = join(dir, "no-config")
    const input = `${initialize(0)}\n{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}\n`
    const result = await early(input, { TURNLOG_HOME: home })
    const expected = await serverAnswer(0, { TURNLOG_HOME: home })
    expect(result.written).toBe(`${expected}\n`)
    expect(result.prefix).toBe(input)
    expect(result.answered).toEqual({ id: 0, frame: expected })
    expect(JSON.parse(expected).result.authMethods[0].description).toContain(`or set "model" in the config file ${join(home, "config.json")}`)
  })

  it("names the config file found in the home, as the server does", async () => {
    const home = join(dir, "with-config")
    mkdirSync(home, { recursive: true })
    writeFileSync(join(home, "config.json"), "{}")
    const result = await early(`${initialize("a")}\n`, { TURNLOG_HOME: home })
    expect(result.answered).toEqual({ id: "a", frame: await serverAnswer("a", { TURNLOG_HOME: home }) })
  })

  it("leaves anything but an initialize request to the server, unanswered", async () => {
    for (
      const first of [
        `{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}`,
        `{not json`,
        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1"}}`,
        `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1}}`,
      ]
    ) {
      const result = await early(`${first}\n`, { TURNLOG_HOME: dir })
      expect(result).toEqual({ written: "", prefix: `${first}\n`, answered: undefined })
    }
  })

  it("leaves initialize to the server when the named config file is missing (the command refuses it)", async () => {
    const result = await early(`${initialize(0)}\n`, { TURNLOG_HOME: dir, TURNLOG_CONFIG: join(dir, "absent.json") })
    expect(result).toEqual({ written: "", prefix: `${initialize(0)}\n`, answered: undefined })
  })

  it("reads a frame that arrives in pieces up to its newline", async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const done = AcpEarly.answerInitialize(stdin as unknown as NodeJS.ReadStream, stdout, { TURNLOG_HOME: dir }, dir)
    const frame = initialize(7)
    stdin.write(frame.slice(0, 10))
    stdin.write(frame.slice(10) + "\n" + '{"jsonrpc"')
    await done
    expect(AcpEarly.handOver().answered?.id).toBe(7)
    expect(new TextDecoder().decode(AcpEarly.handOver().prefix)).toBe(`${frame}\n{"jsonrpc"`)
  })
})
