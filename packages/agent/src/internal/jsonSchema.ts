/**
 * Tool parameters as providers accept them. `JSONSchema.make` names reused
 * schemas (`Schema.Int`, any schema with an identifier) under `$defs` and
 * points at them with `$ref`; several providers reject `$ref` in tool
 * parameters, so references are inlined. A recursive schema cannot be inlined
 * and is sent as generated.
 */
import { JSONSchema, type Schema } from "effect"

type Json = unknown

const PREFIX = "#/$defs/"

class Cycle extends Error {}

const inline = (node: Json, defs: Readonly<Record<string, Json>>, seen: ReadonlyArray<string>): Json => {
  if (Array.isArray(node)) return node.map((n) => inline(n, defs, seen))
  if (typeof node !== "object" || node === null) return node
  const record = node as Record<string, Json>
  const ref = record.$ref
  if (typeof ref === "string" && ref.startsWith(PREFIX)) {
    const name = ref.slice(PREFIX.length)
    if (seen.includes(name) || !(name in defs)) throw new Cycle()
    const { $ref: _, ...siblings } = record
    const target = inline(defs[name], defs, [...seen, name]) as Record<string, Json>
    return { ...target, ...(inline(siblings, defs, seen) as Record<string, Json>) }
  }
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(record)) out[key] = inline(value, defs, seen)
  return out
}

/** The JSON Schema of `schema`, without `$schema` and with `$defs` references inlined. */
export const parametersOf = (schema: Schema.Schema.AnyNoContext): Record<string, unknown> => {
  const { $schema: _, $defs, ...rest } = JSONSchema.make(schema) as unknown as Record<string, Json>
  if ($defs === undefined) return rest
  try {
    return inline(rest, $defs as Record<string, Json>, []) as Record<string, unknown>
  } catch (error) {
    if (error instanceof Cycle) return { ...rest, $defs }
    throw error
  }
}
