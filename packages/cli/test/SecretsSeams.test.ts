// Which credentials the process holds and the environment commands get; the
// output seam: every write to a guarded stream is redacted, whether it is text
// (notes, transcripts) or bytes (ACP frames written through a web stream).
import { PassThrough, Writable } from "node:stream"
import { Redaction } from "@turnlog/llm"
import { describe, expect, it } from "vitest"
import { guardStream, of } from "../src/Secrets.js"

const KEY = "sk-ünïcode-0123456789"

const collect = async (write: (stream: Writable) => void): Promise<string> => {
  const stream = new PassThrough()
  const parts: Array<Buffer> = []
  stream.on("data", (part: Buffer) => parts.push(part))
  guardStream(stream, Redaction.make([KEY]))
  write(stream)
  stream.end()
  await new Promise((resolve) => stream.on("end", resolve))
  return Buffer.concat(parts).toString("utf8")
}

describe("guardStream", () => {
  it("redacts strings and bytes, and passes other writes unchanged", async () => {
    const frame = JSON.stringify({ jsonrpc: "2.0", params: { text: `key ${KEY}` } }) + "\n"
    const output = await collect((stream) => {
      stream.write(`note: ${KEY}\n`)
      stream.write(new TextEncoder().encode(frame))
      stream.write("plain\n", "utf8", () => undefined)
      stream.write(Buffer.from("bytes without a key ü\n"))
    })
    expect(output).toBe(
      'note: [redacted]\n{"jsonrpc":"2.0","params":{"text":"key [redacted]"}}\nplain\nbytes without a key ü\n',
    )
  })

  it("is installed once per stream", async () => {
    const stream = new PassThrough()
    const redactor = Redaction.make([KEY])
    guardStream(stream, redactor)
    const write = stream.write
    guardStream(stream, redactor)
    expect(stream.write).toBe(write)
  })
})

describe("of", () => {
  it("names the built-in and configured credential variables; commands get the rest and what passEnv names", () => {
    const secrets = of({
      home: "/h",
      store: "jsonl",
      config: {
        providers: { local: { api: "openai-completions", baseUrl: "http://x", apiKeyEnv: "MY_KEY", models: [] } },
        passEnv: ["OPENAI_API_KEY"],
      },
    }, {
      PATH: "/usr/bin",
      MY_KEY: "my-key-0123456789",
      OPENAI_API_KEY: " sk-openai-0123456789\r\n",
      ANTHROPIC_API_KEY: "short",
      AWS_PROFILE: "default-profile",
    })
    expect(secrets.names).toContain("MY_KEY")
    expect(secrets.names).toContain("AWS_SECRET_ACCESS_KEY")
    expect(secrets.commandEnv).toEqual({
      PATH: "/usr/bin",
      OPENAI_API_KEY: " sk-openai-0123456789\r\n",
      AWS_PROFILE: "default-profile",
    })
    // Trimmed, and a value too short to be a key is not one.
    expect(secrets.redactor.secrets).toEqual(["sk-openai-0123456789", "my-key-0123456789"])
  })

  it("holds the PostgreSQL store's URL as a credential: the variable is not passed to commands, the URL and its password are redacted", () => {
    const secrets = of({
      home: "/h",
      store: "postgres",
      config: { database: { url: "postgres://turnlog:c0nfig%2Fpassword@db:5432/turnlog" } },
    }, {
      PATH: "/usr/bin",
      TURNLOG_DATABASE_URL: "postgres://worker:env-password-123@db.internal:5432/sessions",
    })
    expect(secrets.names).toContain("TURNLOG_DATABASE_URL")
    expect(secrets.commandEnv).toEqual({ PATH: "/usr/bin" })
    expect(Redaction.text(secrets.redactor, "connect postgres://worker:env-password-123@db.internal:5432/sessions failed"))
      .toBe("connect [redacted] failed")
    expect(Redaction.text(secrets.redactor, "password env-password-123 refused; c0nfig/password too"))
      .toBe("password [redacted] refused; [redacted] too")
  })
})
