/**
 * The one place the Layer graph is built: store, model, tools, permissions
 * and the agent loop, from the resolved settings and the model choice.
 */
import { Effect, Either, Layer } from "effect"
import { AgentLoop, Builtins, Permissions, SystemPrompt, type Tools } from "@turnlog/agent"
import { type LlmAdapter, Redacting, ReplayDiagnostics, Routed, Scripted } from "@turnlog/llm"
import type { AiSdkProviders } from "@turnlog/llm-ai-sdk"
import type { PiAiRouting } from "@turnlog/llm-pi-ai"
import * as PiAiReplay from "@turnlog/llm-pi-ai/PiAiReplay"
import { McpServers } from "@turnlog/mcp"
import { parseRoute } from "@turnlog/protocol"
import type { SessionStore } from "@turnlog/store"
import * as AdapterChoice from "./AdapterChoice.js"
import { CommandFailed, UsageError } from "./CliError.js"
import { clipQuoted } from "./Clip.js"
import * as DemoModel from "./DemoModel.js"
import type { Choice } from "./ModelChoice.js"
import * as ScriptFile from "./ScriptFile.js"
import * as Secrets from "./Secrets.js"
import * as Output from "./Output.js"
import { Invocation, type Settings } from "./Settings.js"
import * as SystemSetting from "./SystemSetting.js"
import { VERSION } from "./Version.js"

import { storeLayer } from "./StoreLayers.js"

export { readStoreLayer, storeLayer } from "./StoreLayers.js"

/** The built-in tools; commands run without the provider credentials (see `Secrets`), in a sandbox where one works. */
export const toolsLayer = (settings: Settings): Layer.Layer<Tools.Tools> =>
  Layer.unwrapEffect(Effect.map(Invocation, (invocation) =>
    Builtins.layer({
      commandEnv: Secrets.of(settings, invocation.env).commandEnv,
      ...(settings.sandbox === undefined ? {} : { sandbox: settings.sandbox }),
    })))

/** MCP servers; stdio ones run in the sandbox commands run in (`TURNLOG_SANDBOX`), where one works. */
export const mcpLayer = (settings: Settings): Layer.Layer<McpServers.McpServers> =>
  Layer.unwrapEffect(Effect.map(Output.Terminal, (terminal) =>
    McpServers.layer({
      clientVersion: VERSION,
      log: (line) => void terminal.stderr.write(`turnlog: ${line}\n`),
      ...(settings.sandbox === undefined ? {} : { sandbox: settings.sandbox }),
    })))

/** Replay diagnostics, one note each on the command's stderr; stdout may belong to a protocol. */
export const replayDiagnosticsLayer: Layer.Layer<ReplayDiagnostics.ReplayDiagnostics> = Layer.succeed(ReplayDiagnostics.ReplayDiagnostics, {
  report: (ds) => Output.rawErr(ds.map((d) => `turnlog: ${ReplayDiagnostics.format(d)}\n`).join("")),
})

// pi-ai and its provider catalog load only when a provider is used: keyless runs start faster.
const loadPiAi = Effect.promise(() => import("@turnlog/llm-pi-ai"))
// Likewise the AI SDK's provider packages, only when the config gives them a provider.
const loadAiSdk = Effect.promise(() => import("@turnlog/llm-ai-sdk"))

/**
 * The model that runs without a provider key: the scripted adapter behind
 * the pi-ai read side, so stored replay state replays natively or degrades
 * with its diagnostic exactly as before a real request; only the wire is
 * missing.
 */
export const keylessModel = (
  script: Scripted.Script,
): Layer.Layer<LlmAdapter.LlmAdapter, never, ReplayDiagnostics.ReplayDiagnostics> => Scripted.layerReplaying(script, PiAiReplay.codec)

export interface ProviderConfigs {
  /** The providers the pi-ai adapter serves (every one the config does not give to another adapter). */
  readonly piAi: PiAiRouting.Config
  /** The providers whose entry says `"adapter": "ai-sdk"`, when there are any. */
  readonly aiSdk?: AiSdkProviders.Config
}

// A command checks the providers, offers their models (acp) and builds the
// adapters from one settings value: its provider config is decoded once, and
// the decoded value is what every one of them, the adapters included, reads.
const decoded = new WeakMap<Settings["config"], ProviderConfigs>()

/** The provider config each adapter reads, checked up front so a bad one is a usage error. */
export const providerConfig = (settings: Settings): Effect.Effect<ProviderConfigs, UsageError> =>
  Effect.suspend(() => {
    const known = decoded.get(settings.config)
    return known !== undefined
      ? Effect.succeed(known)
      : Effect.tap(decodeProviders(settings), (configs) => Effect.sync(() => void decoded.set(settings.config, configs)))
  })

const decodeProviders = (settings: Settings): Effect.Effect<ProviderConfigs, UsageError> => {
  const bad = (message: string) => new UsageError({ message: `config file ${settings.configFile ?? "(none)"}: ${clipQuoted(message)}` })
  return Effect.gen(function*() {
    const split = yield* Either.mapLeft(AdapterChoice.split(settings.config.providers), bad)
    const { PiAiRouting } = yield* loadPiAi
    const piAi = yield* Effect.mapError(
      PiAiRouting.decodeConfig(settings.config.providers === undefined ? {} : { providers: split.piAi }),
      (e) => bad(e.message),
    )
    if (Object.keys(split.aiSdk).length === 0) return { piAi }
    const { AiSdkProviders } = yield* loadAiSdk
    const catalog = PiAiRouting.make({}, {}).models
    const entries = AdapterChoice.withBuiltins(split.aiSdk, (provider) => catalog.getModels(provider))
    const aiSdk = yield* Effect.mapError(AiSdkProviders.decodeConfig({ providers: entries }), (e) => bad(e.message))
    return { piAi, aiSdk }
  })
}

export const modelLayer = (
  settings: Settings,
  choice: Choice,
): Layer.Layer<LlmAdapter.LlmAdapter, UsageError, ReplayDiagnostics.ReplayDiagnostics> => {
  switch (choice.kind) {
    case "provider":
      return Layer.unwrapEffect(Effect.gen(function*() {
        const configs = yield* providerConfig(settings)
        const { env } = yield* Invocation
        const { PiAiAdapter, PiAiRouting } = yield* loadPiAi
        // A route no provider serves is a mistake in the command or the config:
        // said now, before a session is made for it.
        const route = parseRoute(choice.route)
        const aiSdkProvider = route === undefined ? undefined : configs.aiSdk?.providers[route.provider]
        if (route !== undefined && aiSdkProvider !== undefined && !aiSdkProvider.models.some((m) => m.id === route.model)) {
          return yield* new UsageError({ message: `model ${choice.route}: provider "${route.provider}" has no model "${route.model}"` })
        }
        const router = route === undefined || aiSdkProvider !== undefined ? undefined : PiAiRouting.make(configs.piAi, env)
        const resolved = router === undefined || route === undefined ? undefined : router.resolve(route.provider, route.model)
        if (resolved !== undefined && Either.isLeft(resolved) && router !== undefined && route !== undefined) {
          const { didYouMean } = yield* Effect.promise(() => import("./commands/Models.js"))
          return yield* new UsageError({
            message: `model ${choice.route}: ${resolved.left.message}${didYouMean(router, route.provider, route.model)} (see: turnlog models)`,
          })
        }
        const piAi = PiAiAdapter.layerDecoded(configs.piAi, { env })
        if (configs.aiSdk === undefined) return piAi
        // The providers the config gives to the AI SDK adapter go to it; every other one to pi-ai.
        const { AiSdkAdapter } = yield* loadAiSdk
        return Routed.layer(piAi, [{
          providers: Object.keys(configs.aiSdk.providers),
          adapter: AiSdkAdapter.layerDecoded(configs.aiSdk, { env }),
        }])
      }))
    case "script":
      return Layer.unwrapEffect(
        Effect.zipRight(providersChecked(settings), Effect.map(ScriptFile.load(choice.file), keylessModel)),
      )
    case "demo":
      return Layer.unwrapEffect(Effect.as(providersChecked(settings), keylessModel((request) => DemoModel.reply(request))))
  }
}

/**
 * Providers the config declares are checked even when no provider answers
 * (the demo model, a script): a mistake in them is a usage error now, not on
 * the day a key is set.
 */
export const providersChecked = (settings: Settings): Effect.Effect<void, UsageError> =>
  settings.config.providers === undefined ? Effect.void : Effect.asVoid(providerConfig(settings))

/**
 * Who decides whether a tool call may write or run a command: everyone is
 * allowed with `--allow-tools` or the config's `"permissions": "allow"`,
 * nobody with `"deny"`, and otherwise `ask` decides — the terminal for `run`,
 * the editor for `acp`.
 */
export const permissionsLayer = <R>(
  settings: Settings,
  ask: Layer.Layer<Permissions.Permissions, never, R>,
  options: { readonly allowTools?: boolean } = {},
): Layer.Layer<Permissions.Permissions, never, R> => {
  if (options.allowTools === true) return Permissions.layerAllowAll
  switch (settings.config.permissions) {
    case "allow":
      return Permissions.layerAllowAll
    case "deny":
      return Permissions.layerDenyAll
    default:
      return ask
  }
}

export interface AgentOptions<R> {
  readonly settings: Settings
  readonly choice: Choice
  readonly permissions: Layer.Layer<Permissions.Permissions, never, R>
  /** Default: the built-ins. */
  readonly tools?: Layer.Layer<Tools.Tools, never, R>
  readonly maxTokens?: number
  /** The program named in the leases the store takes (see `storeLayer`). */
  readonly program?: string
}

/** The agent loop over the real store, model and tools; the store and the tools (for display) are exposed too. */
export const agentLayer = <R = never>(
  options: AgentOptions<R>,
): Layer.Layer<AgentLoop.AgentLoop | SessionStore.SessionStore | Tools.Tools, UsageError | CommandFailed, R> => {
  const maxTokens = options.maxTokens ?? options.settings.config.maxTokens
  const idleSeconds = options.settings.config.streamIdleTimeoutSeconds
  const loop = AgentLoop.layer({
    model: options.choice.route,
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(idleSeconds === undefined ? {} : { streamIdleTimeoutMs: idleSeconds * 1000 }),
    ...(options.settings.config.compaction === undefined
      ? {}
      : { compaction: options.settings.config.compaction as AgentLoop.CompactionSetting }),
  }).pipe(Layer.mapError((e) => new UsageError({ message: e.message })))
  return loop.pipe(
    Layer.provide(Layer.mergeAll(
      // What goes to the provider and what it streams back are redacted (see `Secrets`).
      Layer.unwrapEffect(Effect.map(Invocation, (invocation) => Redacting.layer(Secrets.of(options.settings, invocation.env).redactor))).pipe(
        Layer.provide(modelLayer(options.settings, options.choice)),
      ),
      options.permissions,
      // Each request's system prompt: the default or the config's, and the instruction files.
      Layer.unwrapEffect(Effect.map(SystemSetting.options(options.settings), SystemPrompt.layer)),
    )),
    Layer.provideMerge(options.tools ?? toolsLayer(options.settings)),
    Layer.provideMerge(storeLayer(options.settings, options.program)),
    Layer.provide(replayDiagnosticsLayer),
  )
}
