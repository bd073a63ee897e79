/**
 * The environment variables that hold a credential for one of pi-ai's
 * built-in providers: what a command the agent runs must not inherit, and
 * whose values are redacted from everything turnlog writes. A custom
 * provider's credential is the variable its config names (`apiKeyEnv`).
 *
 * Kept as a list, without importing pi-ai, so that a keyless run can strip
 * them without loading pi-ai's catalog. A test holds the list to pi-ai: every
 * variable a built-in provider reads is either here or in `SETTINGS` (names
 * pi-ai reads that hold no secret — a region, a project, a path — which are
 * neither stripped nor redacted).
 */

export const CREDENTIALS: ReadonlyArray<string> = [
  "AI_GATEWAY_API_KEY",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_OAUTH_TOKEN",
  "ANT_LING_API_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_BEARER_TOKEN_BEDROCK",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AZURE_OPENAI_API_KEY",
  "BASETEN_API_KEY",
  "CEREBRAS_API_KEY",
  "CLOUDFLARE_API_KEY",
  "COPILOT_GITHUB_TOKEN",
  "DEEPSEEK_API_KEY",
  "FIREWORKS_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_CLOUD_API_KEY",
  "GROQ_API_KEY",
  "HF_TOKEN",
  "KIMI_API_KEY",
  "META_API_KEY",
  "MINIMAX_API_KEY",
  "MINIMAX_CN_API_KEY",
  "MISTRAL_API_KEY",
  "MOONSHOT_API_KEY",
  "NVIDIA_API_KEY",
  "OPENAI_API_KEY",
  "OPENCODE_API_KEY",
  "OPENROUTER_API_KEY",
  "QWEN_TOKEN_PLAN_API_KEY",
  "QWEN_TOKEN_PLAN_CN_API_KEY",
  "QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY",
  "QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY",
  "QWEN_TOKEN_PLAN_TEAM_API_KEY",
  "QWEN_TOKEN_PLAN_TEAM_CN_API_KEY",
  "RADIUS_API_KEY",
  "TOGETHER_API_KEY",
  "TYPESAFE_API_KEY",
  "XAI_API_KEY",
  "XIAOMI_API_KEY",
  "XIAOMI_TOKEN_PLAN_AMS_API_KEY",
  "XIAOMI_TOKEN_PLAN_CN_API_KEY",
  "XIAOMI_TOKEN_PLAN_SGP_API_KEY",
  "ZAI_API_KEY",
  "ZAI_CODING_CN_API_KEY",
]

/** Variables pi-ai reads that name where or how, not a secret. */
export const SETTINGS: ReadonlyArray<string> = [
  "ANTHROPIC_FEDERATION_RULE_ID",
  "AWS_CONTAINER_CREDENTIALS_FULL_URI",
  "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
  "AWS_PROFILE",
  "AWS_WEB_IDENTITY_TOKEN_FILE",
  "CLOUDFLARE_ACCOUNT_ID",
  "CLOUDFLARE_GATEWAY_ID",
  "GCLOUD_PROJECT",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GOOGLE_CLOUD_LOCATION",
  "GOOGLE_CLOUD_PROJECT",
]
