/** Providers whose key alone picks a model, in this order, with the model it picks (plain data: the early `initialize` answer names them). */
export const KEYED_PROVIDERS: ReadonlyArray<{ readonly env: string; readonly route: string }> = [
  { env: "ANTHROPIC_API_KEY", route: "anthropic/claude-sonnet-4-5" },
  { env: "OPENAI_API_KEY", route: "openai/gpt-5-mini" },
  { env: "GEMINI_API_KEY", route: "google/gemini-2.5-flash" },
  { env: "DEEPSEEK_API_KEY", route: "deepseek/deepseek-flash" },
  { env: "MISTRAL_API_KEY", route: "mistral/mistral-large-latest" },
]
