/**
 * `turnlog acp`: the agent for editors, over stdio. stdout carries only ACP
 * frames; every note goes to stderr. Permissions are asked of the editor
 * unless the config says `"permissions": "allow"` or `"deny"`.
 */
import { Duration, Effect, Either, Layer, Option } from "effect"
import { AcpServer, CallIds, EditorHost, PermissionBridge, Stdio } from "@turnlog/acp"
import { StoreError } from "@turnlog/store"
import * as AcpAuthMethod from "../AcpAuthMethod.js"
import * as AcpEarly from "../AcpEarly.js"
import * as AdapterChoice from "../AdapterChoice.js"
import * as Doctor from "./Doctor.js"
import * as Layers from "../Layers.js"
import * as ModelChoice from "../ModelChoice.js"
import * as SignalHold from "../SignalHold.js"
import type { UsageError } from "../CliError.js"
import { rawErr } from "../Output.js"
import { Invocation, type Settings } from "../Settings.js"
import { VERSION } from "../Version.js"
import { announce, noProvider } from "./Run.js"

/**
 * `reload` resolves the settings again as the command line did (the config
 * file is read again): `authenticate` asks it whether a model can run now.
 */
export const acp = (settings: Settings, reload: Effect.Effect<Settings, UsageError> = Effect.succeed(settings)) =>
  Effect.gen(function*() {
    const choice = yield* ModelChoice.choose(Option.none(), settings, (yield* Invocation).env)
    if (choice.kind === "demo") {
      // An editor hides stderr: the editor is told by `auth_required` answers (see `auth`).
      yield* Layers.providersChecked(settings)
      yield* rawErr(`turnlog: ${noProvider(settings, { modelFlag: false })}\n`)
    } else {
      yield* announce(choice)
    }
    const layer = Layers.agentLayer<PermissionBridge.PermissionBridge | CallIds.CallIds>({
      settings,
      choice,
      // Another process that finds one of our sessions held is told it is open in an editor.
      program: StoreError.EDITOR_PROGRAM,
      permissions: Layers.permissionsLayer(settings, PermissionBridge.layerPermissions),
      // Counted as the loop prepares them, so a permission question names the call as the editor sees it.
      tools: CallIds.layerTools.pipe(Layer.provide(Layers.toolsLayer(settings))),
    }).pipe(
      // The editor's file system and terminal, for the sessions whose editor offers them.
      Layer.provideMerge(Layer.mergeAll(PermissionBridge.layer, CallIds.layer, EditorHost.layer)),
      // The editor's MCP servers, per session; any still running stop with the command.
      Layer.provideMerge(Layers.mcpLayer(settings)),
    )
    const models = yield* modelsOffered(settings, choice)
    const server = AcpServer.make({
      version: VERSION,
      doctor: (session) => Doctor.render(Doctor.diagnose(session)),
      models,
      idleRelease: Duration.seconds(settings.config.idleReleaseSeconds ?? 120),
      // Started for each session beside the editor's, as `run` starts them.
      ...(settings.config.mcpServers === undefined ? {} : { mcpServers: settings.config.mcpServers }),
      auth: auth(settings, choice, reload),
    })
    const serving = Effect.flatMap(server, (s) => s.serve(Stdio.stream(process.stdin, process.stdout, AcpEarly.handOver()))).pipe(Effect.provide(layer))
    // Released after the server's own shutdown: until the prompts in flight are answered, a repeated signal waits.
    const held = SignalHold.hold((line) => void process.stderr.write(`turnlog: ${line}\n`))
    yield* Effect.scoped(Effect.zipRight(Effect.zipRight(held, onMemorySignal), serving))
  })

export { AUTH_METHOD_ID } from "../AcpAuthMethod.js"

/**
 * How a model comes to run under `acp`: a provider key in the agent's
 * environment or a "model" in the config file. Started without either, every
 * `session/new` and `session/prompt` is answered `auth_required` naming them
 * (never the demo model: that is `turnlog demo`); `authenticate` reads the
 * config again. A model configured after the start needs the agent started
 * again, and is answered so.
 */
const auth = (settings: Settings, choice: ModelChoice.Choice, reload: Effect.Effect<Settings, UsageError>) => {
  const method = AcpAuthMethod.authMethod(settings)
  if (choice.kind !== "demo") return { method, missing: async () => undefined }
  const missing = () =>
    Effect.runPromise(reload.pipe(
      Effect.map((fresh) => {
        const again = ModelChoice.choose(Option.none(), fresh)
        if (Either.isLeft(again)) return again.left.message
        return again.right.kind === "demo"
          ? noProvider(fresh, { modelFlag: false })
          : `a model is configured now (${again.right.route}), but this agent started without one: start it again to use it`
      }),
      Effect.catchAll((e) => Effect.succeed(e.message)),
    ))
  return { method, missing }
}

/**
 * `kill -USR2 <pid>` asks the agent for one line on stderr with its memory:
 * the heap in use — after a full collection when node runs with `--expose-gc`
 * — and the resident size. stdout stays the protocol's.
 */
const onMemorySignal = Effect.acquireRelease(
  Effect.sync(() => {
    const report = () => {
      const gc = (globalThis as { readonly gc?: () => void }).gc
      gc?.()
      const memory = process.memoryUsage()
      process.stderr.write(
        `turnlog: memory: heap used ${memory.heapUsed} bytes${gc === undefined ? "" : " after a full collection"}, resident ${memory.rss} bytes\n`,
      )
    }
    process.on("SIGUSR2", report)
    return report
  }),
  (report) => Effect.sync(() => void process.off("SIGUSR2", report)),
)

/**
 * The models an editor may switch a session to: the one chosen (the default),
 * every model of the config's providers, and the built-in providers whose key
 * is set.
 */
export const modelsOffered = (settings: Settings, choice: ModelChoice.Choice) =>
  Effect.gen(function*() {
    const routes = [choice.route]
    if (settings.config.providers !== undefined) {
      const configs = yield* Layers.providerConfig(settings)
      // A built-in provider given to the AI SDK by name alone is offered as built-ins are (below), not its whole catalog.
      const listed = { ...configs.piAi.providers, ...AdapterChoice.declared(configs.aiSdk?.providers ?? {}, settings.config.providers) }
      for (const [provider, declared] of Object.entries(listed)) {
        for (const model of declared.models) routes.push(`${provider}/${model.id}`)
      }
    }
    if (choice.kind === "provider") {
      const { env } = yield* Invocation
      for (const keyed of ModelChoice.KEYED_PROVIDERS) {
        if (env[keyed.env] !== undefined && env[keyed.env] !== "") routes.push(keyed.route)
      }
    }
    return [...new Set(routes)]
  })
