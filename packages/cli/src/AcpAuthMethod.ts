/**
 * The one authentication method `turnlog acp` offers in `initialize`: a
 * provider key in the environment the agent starts with, or a "model" in the
 * config file. Plain data, so the early answer to `initialize` can name it.
 */
import { join } from "node:path"
import type * as acp from "@agentclientprotocol/sdk"
import { KEYED_PROVIDERS } from "./KeyedProviders.js"

/** The environment-variable method `initialize` offers: the keys that pick a model, and the config file. */
export const AUTH_METHOD_ID = "provider-key"

/** The method, naming the config file read (or the one the home would hold). */
export const authMethod = (location: { readonly home: string; readonly configFile?: string | undefined }): acp.AuthMethod => {
  const configFile = location.configFile ?? join(location.home, "config.json")
  return {
    id: AUTH_METHOD_ID,
    name: "Provider key",
    description: `Set ${KEYED_PROVIDERS.map((p) => p.env).join(", ")} in the environment the agent starts with, ` +
      `or set "model" in the config file ${configFile}`,
  }
}
