// The credential variables listed without pi-ai stay in step with pi-ai: every
// variable a built-in provider's key lookup reads is classified, as a
// credential (stripped from commands, its value redacted) or as a setting.
import { describe, expect, it } from "@effect/vitest"
import { defaultProviderAuthContext } from "@earendil-works/pi-ai"
import { builtinModels } from "@earendil-works/pi-ai/providers/all"
import { CREDENTIALS, SETTINGS } from "../src/CredentialEnv.js"

/** The variables each provider's key lookup asks for, with nothing set and then with everything set. */
const variablesRead = async (): Promise<ReadonlySet<string>> => {
  const names = new Set<string>()
  const models = builtinModels({ authContext: defaultProviderAuthContext() })
  for (const value of [undefined, "value-of-every-variable"]) {
    for (const provider of models.getProviders()) {
      const auth = provider.auth?.apiKey
      if (auth === undefined) continue
      await auth.resolve({
        ctx: {
          env: async (name) => {
            names.add(name)
            return value
          },
          fileExists: async () => value !== undefined,
        },
        signal: new AbortController().signal,
      }).catch(() => undefined)
    }
  }
  return names
}

describe("CredentialEnv", () => {
  it("classifies every variable pi-ai's built-in providers read", async () => {
    const read = await variablesRead()
    expect(read.has("ANTHROPIC_API_KEY")).toBe(true)
    const classified = new Set([...CREDENTIALS, ...SETTINGS])
    expect([...read].filter((name) => !classified.has(name)).sort()).toEqual([])
  })

  it("holds no name twice, and none in both lists", () => {
    expect(new Set(CREDENTIALS).size).toBe(CREDENTIALS.length)
    expect(CREDENTIALS.filter((name) => SETTINGS.includes(name))).toEqual([])
  })
})
