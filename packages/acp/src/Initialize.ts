/**
 * What turnlog says of itself in `initialize`: the protocol version, the
 * agent's name and version, its capabilities and the authentication methods
 * offered. Plain data with no dependency at run time, so that the command line
 * can give this answer before the rest of the agent has loaded.
 */
import type * as acp from "@agentclientprotocol/sdk"

export const PROTOCOL_VERSION = 1

const sessionCapabilities: acp.SessionCapabilities & { readonly fork: Record<string, never> } = {
  list: {},
  close: {},
  resume: {},
  delete: {},
  fork: {},
}

export const initializeResponse = (version: string, authMethods: ReadonlyArray<acp.AuthMethod> = []): acp.InitializeResponse => ({
  protocolVersion: PROTOCOL_VERSION,
  agentInfo: { name: "turnlog", version },
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { image: true, audio: false, embeddedContext: true },
    sessionCapabilities,
    mcpCapabilities: { http: true, sse: true },
  },
  authMethods: [...authMethods],
})
