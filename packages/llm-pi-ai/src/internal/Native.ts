/**
 * The native pi-ai shapes both sides of the replay codec build: the envelope's
 * kind and version, the blocks of an assistant message, its zero usage, and
 * tool-call arguments parsed from their durable JSON text.
 */
import type { TextContent, ThinkingContent, ToolCall, Usage } from "@earendil-works/pi-ai"

export const KIND = "pi-ai"
export const VERSION = 2

export type NativeBlock = TextContent | ThinkingContent | ToolCall

export const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

export const zeroUsage = (): Usage => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
})

/** Durable arguments are raw JSON text; pi-ai wants an object. Anything else is `{}`. */
export const parseArguments = (text: string): ToolCall["arguments"] => {
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? (value as ToolCall["arguments"]) : {}
  } catch {
    return {}
  }
}
