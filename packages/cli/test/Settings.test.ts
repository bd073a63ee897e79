import { mkdtempSync, realpathSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { hoist } from "../src/GlobalArgs.js"
import * as ModelChoice from "../src/ModelChoice.js"
import { decodeConfig, resolveSettings, type Settings } from "../src/Settings.js"

describe("GlobalArgs.hoist", () => {
  it("moves global options (both spellings) before the command, and leaves everything after -- alone", () => {
    expect(hoist(["run", "--home", "/h", "hi", "--store=sqlite", "--allow-tools"])).toEqual([
      "--home",
      "/h",
      "--store",
      "sqlite",
      "run",
      "hi",
      "--allow-tools",
    ])
    expect(hoist(["run", "--", "--home", "is", "a", "word"])).toEqual(["run", "--", "--home", "is", "a", "word"])
  })

  it("leaves global options out of a request for help or the version, which the parser answers only first", () => {
    expect(hoist(["--home", "/h", "--help"])).toEqual(["--help"])
    expect(hoist(["--store=sqlite", "--version"])).toEqual(["--version"])
    expect(hoist(["--home", "/h", "run", "--help"])).toEqual(["--home", "/h", "run", "--help"])
  })
})

describe("resolveSettings", () => {
  const none = { home: Option.none(), config: Option.none(), store: Option.none() } as const

  it("takes the home from --home, else TURNLOG_HOME, else ~/.turnlog; the config from its default place only if it exists", async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-settings-")))
    expect(await Effect.runPromise(resolveSettings(none, {}, "/work"))).toEqual({
      home: join(homedir(), ".turnlog"),
      store: "jsonl",
      config: {},
    })
    expect((await Effect.runPromise(resolveSettings(none, { TURNLOG_HOME: "rel" }, "/home/ada"))).home).toBe("/home/ada/rel")
    writeFileSync(join(home, "config.json"), JSON.stringify({ model: "openai/gpt-5-mini", scriptedModel: "m.jsonl" }))
    expect(await Effect.runPromise(resolveSettings({ ...none, home: Option.some(home) }, {}, "/work"))).toEqual({
      home,
      store: "jsonl",
      configFile: join(home, "config.json"),
      config: { model: "openai/gpt-5-mini", scriptedModel: "m.jsonl" },
      scriptedModel: join(home, "m.jsonl"),
    })
  })

  it("takes the store from --store, else the config's store; the database from TURNLOG_DATABASE_URL, else database.url", async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), "turnlog-settings-")))
    const atHome = { ...none, home: Option.some(home) }
    writeFileSync(join(home, "config.json"), JSON.stringify({ store: "postgres", database: { url: "postgres://db.example/turnlog" } }))
    const fromConfig = await Effect.runPromise(resolveSettings(atHome, {}, "/work"))
    expect([fromConfig.store, fromConfig.databaseUrl]).toEqual(["postgres", "postgres://db.example/turnlog"])
    const fromEnv = await Effect.runPromise(resolveSettings(atHome, { TURNLOG_DATABASE_URL: "postgres://other/x" }, "/work"))
    expect(fromEnv.databaseUrl).toBe("postgres://other/x")
    const flagged = await Effect.runPromise(resolveSettings({ ...atHome, store: Option.some("sqlite") }, {}, "/work"))
    expect([flagged.store, "databaseUrl" in flagged]).toEqual(["sqlite", false])

    writeFileSync(join(home, "config.json"), JSON.stringify({ store: "postgres" }))
    const missing = await Effect.runPromise(Effect.either(resolveSettings(atHome, {}, "/work")))
    expect(Either.isLeft(missing) && missing.left.message).toBe(
      "the postgres store needs a database: set TURNLOG_DATABASE_URL or database.url in the config (postgres://user@host:5432/database)",
    )
    writeFileSync(join(home, "config.json"), JSON.stringify({ store: "mongo" }))
    const bad = await Effect.runPromise(Effect.either(resolveSettings(atHome, {}, "/work")))
    expect(Either.isLeft(bad) && bad.left.message).toContain(`config file ${join(home, "config.json")}: store: expected "jsonl", "sqlite" or "postgres" (keys:`)
  })

  it("reads TURNLOG_SANDBOX, and refuses a value it does not know", async () => {
    const off = await Effect.runPromise(resolveSettings(none, { TURNLOG_SANDBOX: "off" }, "/"))
    expect(off.sandbox).toBe("off")
    expect("sandbox" in (await Effect.runPromise(resolveSettings(none, {}, "/")))).toBe(false)
    const bad = await Effect.runPromise(Effect.either(resolveSettings(none, { TURNLOG_SANDBOX: "strict" }, "/")))
    expect(Either.isLeft(bad) && bad.left.message).toBe('TURNLOG_SANDBOX must be auto, off or require, not "strict"')
  })

  it("refuses a TURNLOG_CONFIG that does not exist, naming where it came from", async () => {
    const result = await Effect.runPromise(Effect.either(resolveSettings(none, { TURNLOG_CONFIG: "/nope.json" }, "/")))
    expect(Either.isLeft(result) && result.left.message).toBe("config file /nope.json (from TURNLOG_CONFIG) does not exist")
  })
})

describe("ModelChoice.choose", () => {
  const settings = (extra: Partial<Settings> = {}): Settings => ({ home: "/h", store: "jsonl", config: {}, ...extra })

  it("--model, then the config's model, then a keyed provider's default, then the demo model", () => {
    const keyed = { OPENAI_API_KEY: "sk-x" }
    expect(ModelChoice.choose(Option.some("a/b"), settings({ config: { model: "c/d" } }), keyed)).toEqual(
      Either.right({ kind: "provider", route: "a/b" }),
    )
    expect(ModelChoice.choose(Option.none(), settings({ config: { model: "c/d" } }), keyed)).toEqual(
      Either.right({ kind: "provider", route: "c/d" }),
    )
    expect(ModelChoice.choose(Option.none(), settings(), keyed)).toEqual(Either.right({
      kind: "provider",
      route: "openai/gpt-5-mini",
      note: 'OPENAI_API_KEY is set: using openai/gpt-5-mini (choose another with --model or the config\'s "model")',
    }))
    const demo = ModelChoice.choose(Option.none(), settings(), { ANTHROPIC_API_KEY: "  " })
    expect(Either.isRight(demo) && demo.right.kind).toBe("demo")
    expect(Either.isRight(demo) && demo.right.route).toBe("turnlog/demo")
  })

  it("a scripted-model file replaces the provider and answers as the named route or turnlog/scripted", () => {
    expect(ModelChoice.choose(Option.none(), settings({ scriptedModel: "/m.jsonl" }), { OPENAI_API_KEY: "k" })).toEqual(
      Either.right({ kind: "script", route: "turnlog/scripted", file: "/m.jsonl" }),
    )
    expect(ModelChoice.choose(Option.some("x/y"), settings({ scriptedModel: "/m.jsonl" }))).toEqual(
      Either.right({ kind: "script", route: "x/y", file: "/m.jsonl" }),
    )
  })

  it("a --model that is no route is a usage error that shows the form", () => {
    const result = ModelChoice.choose(Option.some("gpt"), settings())
    expect(Either.isLeft(result) && result.left.message).toBe(
      '--model "gpt" is not a model route: expected "<provider>/<model>", e.g. "anthropic/claude-sonnet-4-5"',
    )
  })
})

describe("the config's mcpServers", () => {
  const message = (text: string) => Either.match(decodeConfig("/c.json", text), { onLeft: (e) => e.message, onRight: () => "ok" })
  const KEYS =
    "(keys: model, maxTokens, streamIdleTimeoutSeconds, idleReleaseSeconds, providers, permissions, scriptedModel, store, database, passEnv, mcpServers, compaction, system, appendSystem, systemFile, appendSystemFile)"

  it("take the ACP shape, stdio with defaults and http with headers", () => {
    expect(decodeConfig("/c.json", `{"mcpServers":[{"name":"fs","command":"npx"},{"type":"http","name":"t","url":"https://h/mcp"}]}`))
      .toEqual(Either.right({
        mcpServers: [
          { name: "fs", command: "npx", args: [], env: [] },
          { type: "http", name: "t", url: "https://h/mcp", headers: [] },
        ],
      }))
  })

  it("a bad entry is one sentence naming the field", () => {
    expect(message(`{"mcpServers":[{"name":"fs","command":"npx","env":{"A":"1"}}]}`)).toBe(
      `config file /c.json: mcpServers.0.env: expected a list of { "name": …, "value": … } ${KEYS}`,
    )
    expect(message(`{"mcpServers":[{"name":"a","command":"x"},{"type":"sse","name":"b"}]}`)).toBe(
      `config file /c.json: mcpServers.1.url: is missing ${KEYS}`,
    )
    expect(message(`{"mcpServers":{"fs":{"command":"npx"}}}`)).toBe(
      `config file /c.json: mcpServers: expected a list of servers, e.g. [{ "name": "fs", "command": "npx", "args": ["-y", "some-mcp-server"] }] ${KEYS}`,
    )
  })
})

describe("the compaction setting", () => {
  const decode = (compaction: unknown) => decodeConfig("/etc/turnlog.json", JSON.stringify({ compaction }))

  it("takes each field given and leaves the rest to the model's defaults", () => {
    expect(decode({ enabled: false, reserveTokens: 2000, keepRecentTokens: 8000 })).toEqual(
      Either.right({ compaction: { enabled: false, reserveTokens: 2000, keepRecentTokens: 8000 } }),
    )
  })

  it("refuses a bad field with a sentence naming it and the file", () => {
    expect(Either.flip(decode({ reserveTokens: -1 })).pipe(Either.map((e) => e.message))).toEqual(Either.right(
      "config file /etc/turnlog.json: compaction.reserveTokens must be a whole number of tokens above 0, got -1",
    ))
    expect(Either.flip(decode({ keepRecent: 10 })).pipe(Either.map((e) => e.message))).toEqual(Either.right(
      "config file /etc/turnlog.json: compaction.keepRecent is not a setting: the settings are enabled, reserveTokens, keepRecentTokens, toolResultShare",
    ))
    expect(Either.flip(decode({ enabled: "yes" })).pipe(Either.map((e) => e.message))).toEqual(Either.right(
      'config file /etc/turnlog.json: compaction.enabled must be true or false, got "yes"',
    ))
  })
})

describe("the idleReleaseSeconds setting", () => {
  const KEYS =
    "(keys: model, maxTokens, streamIdleTimeoutSeconds, idleReleaseSeconds, providers, permissions, scriptedModel, store, database, passEnv, mcpServers, compaction, system, appendSystem, systemFile, appendSystemFile)"
  const message = (text: string) => Either.match(decodeConfig("/c.json", text), { onLeft: (e) => e.message, onRight: () => "ok" })

  it("takes a whole number of seconds above 0, and refuses anything else naming the field", () => {
    expect(decodeConfig("/c.json", `{"idleReleaseSeconds":5}`)).toEqual(Either.right({ idleReleaseSeconds: 5 }))
    expect(message(`{"idleReleaseSeconds":0}`)).toBe(`config file /c.json: idleReleaseSeconds: expected a positive integer ${KEYS}`)
    expect(message(`{"idleReleaseSeconds":1.5}`)).toBe(`config file /c.json: idleReleaseSeconds: expected a positive integer ${KEYS}`)
    expect(message(`{"idleReleaseSeconds":"120"}`)).toBe(`config file /c.json: idleReleaseSeconds: Expected number, actual "120" ${KEYS}`)
  })
})

describe("a provider's baseUrl", () => {
  const message = (baseUrl: string) =>
    Either.match(
      decodeConfig("/c.json", JSON.stringify({ providers: { local: { api: "openai-completions", baseUrl, apiKeyEnv: "K", models: [] } } })),
      { onLeft: (e) => e.message, onRight: () => "ok" },
    )
  it.each(["https://user:hunter2@proxy.example/v1", "http://token@127.0.0.1:8080/v1", "https://:hunter2@proxy.example/v1"])(
    "with credentials (%s) is refused in one sentence that does not repeat it",
    (url) => {
      expect(message(url)).toBe(
        "config file /c.json: providers.local.baseUrl: a URL with a user name or password is refused; put the key in the environment variable that apiKeyEnv names",
      )
    },
  )
  it("without credentials is accepted", () => {
    expect(message("https://proxy.example/v1")).toBe("ok")
  })
})
