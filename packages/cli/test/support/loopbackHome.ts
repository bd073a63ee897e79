/**
 * A home whose config sends its models to the loopback provider: the set-up
 * most slow-tier tests of the real binary share. Each provider is named with
 * its wire (`api`) and models; its `baseUrl` is the server's for that wire and
 * its key is read from `LOOP_TEST_KEY`. `env` carries the home, the key, and
 * no scripted model, for `turnlog(…, { env })` and `agent(…, { env })` alike.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Loopback } from "@turnlog/testkit"
import { tempDir } from "./turnlog.js"

export interface LoopProvider {
  readonly api: Loopback.Api
  readonly models: ReadonlyArray<Readonly<Record<string, unknown>>>
}

export interface LoopConfig {
  /** The config's `model`, e.g. `loop/m`. */
  readonly model: string
  readonly providers: Readonly<Record<string, LoopProvider>>
  /** Anything else the config says (`compaction`, `permissions`, …). */
  readonly [field: string]: unknown
}

export interface LoopHome {
  readonly home: string
  readonly env: Readonly<Record<string, string>>
}

/** A new home (`<label>-home`) with `config`, and the environment that reaches the server; the key is `sk-<label>-0123456789`. */
export const loopbackHome = (server: Loopback.Server, config: LoopConfig, label: string): LoopHome => {
  const home = tempDir(`${label}-home`)
  const providers = Object.fromEntries(
    Object.entries(config.providers).map((
      [name, provider],
    ) => [name, { api: provider.api, baseUrl: server.baseUrl(provider.api), apiKeyEnv: "LOOP_TEST_KEY", models: provider.models }]),
  )
  writeFileSync(join(home, "config.json"), JSON.stringify({ ...config, providers }))
  return { home, env: { TURNLOG_HOME: home, TURNLOG_SCRIPTED_MODEL: "", LOOP_TEST_KEY: `sk-${label}-0123456789` } }
}
