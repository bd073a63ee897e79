/**
 * `turnlog acp`: the agent for editors, over stdio. stdout carries only ACP
 * frames; every note goes to stderr. Permissions are asked of the editor
 * unless the config says `"permissions": "allow"` or `"deny"`.
 */
import { Effect, Layer, Option } from "effect"
import { Builtins } from "@turnlog/agent"
import { AcpServer, CallIds, PermissionBridge, Stdio } from "@turnlog/acp"
import * as Doctor from "../Doctor.js"
import * as Layers from "../Layers.js"
import * as ModelChoice from "../ModelChoice.js"
import type { Settings } from "../Settings.js"
import { VERSION } from "../Version.js"
import { announce } from "./Run.js"

export const acp = (settings: Settings) =>
  Effect.gen(function*() {
    const choice = yield* ModelChoice.choose(Option.none(), settings)
    yield* announce(choice)
    const layer = Layers.agentLayer<PermissionBridge.PermissionBridge | CallIds.CallIds>({
      settings,
      choice,
      permissions: Layers.permissionsLayer(settings, PermissionBridge.layerPermissions),
      // Counted as the loop prepares them, so a permission question names the call as the editor sees it.
      tools: CallIds.layerTools.pipe(Layer.provide(Builtins.layer())),
    }).pipe(Layer.provideMerge(Layer.merge(PermissionBridge.layer, CallIds.layer)))
    yield* Effect.flatMap(AcpServer.make({ version: VERSION, doctor: (session) => Doctor.render(Doctor.diagnose(session)) }), (server) => server.serve(Stdio.stream())).pipe(
      Effect.provide(layer),
    )
  })
