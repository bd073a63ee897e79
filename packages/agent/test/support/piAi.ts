// The pi-ai adapter over a loopback provider, composed the way a real run is:
// replay diagnostics on stderr.
import { Layer } from "effect"
import { ReplayDiagnostics } from "@turnlog/llm"
import { PiAiAdapter } from "@turnlog/llm-pi-ai"
import type { Loopback } from "@turnlog/testkit"

export const KEY_ENV = "TURNLOG_AGENT_LOOPBACK_KEY"
export const KEY = "sk-agent-loopback-0123456789"
export const MODEL_ID = "loop-1"

export const APIS = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"] as const
export type Api = (typeof APIS)[number]

export const providerOf = (api: Api) => `lb-${api}`
export const modelOf = (api: Api) => `${providerOf(api)}/${MODEL_ID}`

export const configFor = (baseUrl: (api: Api) => string) => ({
  providers: Object.fromEntries(APIS.map((api) => [providerOf(api), {
    api,
    baseUrl: baseUrl(api),
    apiKeyEnv: KEY_ENV,
    models: [{ id: MODEL_ID }],
  }])),
})

export const layer = (server: Loopback.Server) =>
  PiAiAdapter.layerPiAi(configFor(server.baseUrl), { env: { [KEY_ENV]: KEY } }).pipe(
    Layer.provide(ReplayDiagnostics.layerStderr),
  )

/** A request body without its tool definitions: what the conversation itself says. */
export const conversationOf = (body: unknown): string => {
  const { tools: _, ...rest } = body as Record<string, unknown>
  return JSON.stringify(rest)
}
