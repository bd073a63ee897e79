/**
 * pi-ai's built-in providers, each run when first asked for: every provider's
 * module builds its models' table when it runs (about a megabyte for them
 * all), and a command needs at most the one its route names (a route of the
 * config's own providers, none). `PROVIDERS` gives one provider's factory by
 * id; `loadCatalog` gives pi-ai's whole catalog, for a list of every model.
 * A test holds `PROVIDERS` to pi-ai's own list.
 *
 * In the command's build each import below runs on the first read through it,
 * not when the command starts (`scripts/packaging/deferred-modules.mjs`);
 * loaded from the sources, the imports run at once. Either way the functions
 * give the same values.
 */
import type { CreateModelsOptions, MutableModels, Provider } from "@earendil-works/pi-ai"
import * as catalogModule from "@earendil-works/pi-ai/providers/all"
import * as amazonBedrockModule from "@earendil-works/pi-ai/providers/amazon-bedrock"
import * as antLingModule from "@earendil-works/pi-ai/providers/ant-ling"
import * as anthropicModule from "@earendil-works/pi-ai/providers/anthropic"
import * as azureModule from "@earendil-works/pi-ai/providers/azure"
import * as basetenModule from "@earendil-works/pi-ai/providers/baseten"
import * as cerebrasModule from "@earendil-works/pi-ai/providers/cerebras"
import * as cloudflareAiGatewayModule from "@earendil-works/pi-ai/providers/cloudflare-ai-gateway"
import * as cloudflareWorkersAiModule from "@earendil-works/pi-ai/providers/cloudflare-workers-ai"
import * as deepseekModule from "@earendil-works/pi-ai/providers/deepseek"
import * as fireworksModule from "@earendil-works/pi-ai/providers/fireworks"
import * as githubCopilotModule from "@earendil-works/pi-ai/providers/github-copilot"
import * as googleModule from "@earendil-works/pi-ai/providers/google"
import * as googleVertexModule from "@earendil-works/pi-ai/providers/google-vertex"
import * as groqModule from "@earendil-works/pi-ai/providers/groq"
import * as huggingfaceModule from "@earendil-works/pi-ai/providers/huggingface"
import * as kimiCodingModule from "@earendil-works/pi-ai/providers/kimi-coding"
import * as metaModule from "@earendil-works/pi-ai/providers/meta"
import * as minimaxModule from "@earendil-works/pi-ai/providers/minimax"
import * as minimaxCnModule from "@earendil-works/pi-ai/providers/minimax-cn"
import * as mistralModule from "@earendil-works/pi-ai/providers/mistral"
import * as moonshotaiModule from "@earendil-works/pi-ai/providers/moonshotai"
import * as moonshotaiCnModule from "@earendil-works/pi-ai/providers/moonshotai-cn"
import * as nvidiaModule from "@earendil-works/pi-ai/providers/nvidia"
import * as openaiModule from "@earendil-works/pi-ai/providers/openai"
import * as openaiCodexModule from "@earendil-works/pi-ai/providers/openai-codex"
import * as opencodeModule from "@earendil-works/pi-ai/providers/opencode"
import * as opencodeGoModule from "@earendil-works/pi-ai/providers/opencode-go"
import * as openrouterModule from "@earendil-works/pi-ai/providers/openrouter"
import * as qwenTokenPlanModule from "@earendil-works/pi-ai/providers/qwen-token-plan"
import * as qwenTokenPlanCnModule from "@earendil-works/pi-ai/providers/qwen-token-plan-cn"
import * as qwenTokenPlanIndividualModule from "@earendil-works/pi-ai/providers/qwen-token-plan-individual"
import * as qwenTokenPlanIndividualCnModule from "@earendil-works/pi-ai/providers/qwen-token-plan-individual-cn"
import * as radiusModule from "@earendil-works/pi-ai/providers/radius"
import * as togetherModule from "@earendil-works/pi-ai/providers/together"
import * as typesafeModule from "@earendil-works/pi-ai/providers/typesafe"
import * as vercelAiGatewayModule from "@earendil-works/pi-ai/providers/vercel-ai-gateway"
import * as xaiModule from "@earendil-works/pi-ai/providers/xai"
import * as xiaomiModule from "@earendil-works/pi-ai/providers/xiaomi"
import * as xiaomiTokenPlanAmsModule from "@earendil-works/pi-ai/providers/xiaomi-token-plan-ams"
import * as xiaomiTokenPlanCnModule from "@earendil-works/pi-ai/providers/xiaomi-token-plan-cn"
import * as xiaomiTokenPlanSgpModule from "@earendil-works/pi-ai/providers/xiaomi-token-plan-sgp"
import * as zaiModule from "@earendil-works/pi-ai/providers/zai"
import * as zaiCodingCnModule from "@earendil-works/pi-ai/providers/zai-coding-cn"

/**
 * pi-ai's `builtinModels`: a collection of every built-in provider. Typed with
 * pi-ai's main module alone, so that a program type-checking against this
 * package's declarations is not sent into the catalog's.
 */
export const loadCatalog = (): (options?: CreateModelsOptions) => MutableModels => catalogModule.builtinModels

/** Each built-in provider's factory, by the provider's id. */
export const PROVIDERS: ReadonlyMap<string, () => () => Provider> = new Map([
  ["amazon-bedrock", () => amazonBedrockModule.amazonBedrockProvider],
  ["ant-ling", () => antLingModule.antLingProvider],
  ["anthropic", () => anthropicModule.anthropicProvider],
  ["azure", () => azureModule.azureProvider],
  ["baseten", () => basetenModule.basetenProvider],
  ["cerebras", () => cerebrasModule.cerebrasProvider],
  ["cloudflare-ai-gateway", () => cloudflareAiGatewayModule.cloudflareAIGatewayProvider],
  ["cloudflare-workers-ai", () => cloudflareWorkersAiModule.cloudflareWorkersAIProvider],
  ["deepseek", () => deepseekModule.deepseekProvider],
  ["fireworks", () => fireworksModule.fireworksProvider],
  ["github-copilot", () => githubCopilotModule.githubCopilotProvider],
  ["google", () => googleModule.googleProvider],
  ["google-vertex", () => googleVertexModule.googleVertexProvider],
  ["groq", () => groqModule.groqProvider],
  ["huggingface", () => huggingfaceModule.huggingfaceProvider],
  ["kimi-coding", () => kimiCodingModule.kimiCodingProvider],
  ["meta", () => metaModule.metaProvider],
  ["minimax", () => minimaxModule.minimaxProvider],
  ["minimax-cn", () => minimaxCnModule.minimaxCnProvider],
  ["mistral", () => mistralModule.mistralProvider],
  ["moonshotai", () => moonshotaiModule.moonshotaiProvider],
  ["moonshotai-cn", () => moonshotaiCnModule.moonshotaiCnProvider],
  ["nvidia", () => nvidiaModule.nvidiaProvider],
  ["openai", () => openaiModule.openaiProvider],
  ["openai-codex", () => openaiCodexModule.openaiCodexProvider],
  ["opencode", () => opencodeModule.opencodeProvider],
  ["opencode-go", () => opencodeGoModule.opencodeGoProvider],
  ["openrouter", () => openrouterModule.openrouterProvider],
  ["qwen-token-plan", () => qwenTokenPlanModule.qwenTokenPlanProvider],
  ["qwen-token-plan-cn", () => qwenTokenPlanCnModule.qwenTokenPlanCnProvider],
  ["qwen-token-plan-individual", () => qwenTokenPlanIndividualModule.qwenTokenPlanIndividualProvider],
  ["qwen-token-plan-individual-cn", () => qwenTokenPlanIndividualCnModule.qwenTokenPlanIndividualCnProvider],
  ["radius", () => radiusModule.radiusProvider],
  ["together", () => togetherModule.togetherProvider],
  ["typesafe", () => typesafeModule.typesafeProvider],
  ["vercel-ai-gateway", () => vercelAiGatewayModule.vercelAIGatewayProvider],
  ["xai", () => xaiModule.xaiProvider],
  ["xiaomi", () => xiaomiModule.xiaomiProvider],
  ["xiaomi-token-plan-ams", () => xiaomiTokenPlanAmsModule.xiaomiTokenPlanAmsProvider],
  ["xiaomi-token-plan-cn", () => xiaomiTokenPlanCnModule.xiaomiTokenPlanCnProvider],
  ["xiaomi-token-plan-sgp", () => xiaomiTokenPlanSgpModule.xiaomiTokenPlanSgpProvider],
  ["zai", () => zaiModule.zaiProvider],
  ["zai-coding-cn", () => zaiCodingCnModule.zaiCodingCnProvider],
])
