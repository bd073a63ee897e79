export * as LlmAdapter from "./LlmAdapter.js"
export * as ReplayDiagnostics from "./ReplayDiagnostics.js"
export * as Scripted from "./Scripted.js"
