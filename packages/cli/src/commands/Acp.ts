/**
 * `turnlog acp`: the agent for editors, over stdio. stdout carries only ACP
 * frames; every note goes to stderr. Permissions are asked of the editor
 * unless the config says `"permissions": "allow"` or `"deny"`.
 */
import { Effect, Layer, Option } from "effect"
import { Permissions } from "@turnlog/agent"
import { AcpServer, PermissionBridge, Stdio } from "@turnlog/acp"
import { McpServers } from "@turnlog/mcp"
import * as Layers from "../Layers.js"
import * as ModelChoice from "../ModelChoice.js"
import type { Settings } from "../Settings.js"
import { VERSION } from "../Version.js"
import { announce } from "./Run.js"

const permissionsLayer = (settings: Settings) => {
  switch (settings.config.permissions) {
    case "allow":
      return Permissions.layerAllowAll
    case "deny":
      return Permissions.layerDenyAll
    default:
      return PermissionBridge.layerPermissions
  }
}

export const acp = (settings: Settings) =>
  Effect.gen(function*() {
    const choice = yield* ModelChoice.choose(Option.none(), settings)
    yield* announce(choice)
    const layer = Layers.agentLayer({ settings, choice, permissions: permissionsLayer(settings) }).pipe(
      Layer.provideMerge(PermissionBridge.layer),
      // The editor's MCP servers, per session; any still running stop with the command.
      Layer.provideMerge(McpServers.layer({ clientVersion: VERSION })),
    )
    yield* Effect.flatMap(AcpServer.make({ version: VERSION }), (server) => server.serve(Stdio.stream())).pipe(
      Effect.provide(layer),
    )
  })
