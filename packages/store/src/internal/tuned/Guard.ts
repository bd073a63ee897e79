/**
 * TUNED FOR BENCHMARK cold load of bench/store.bench.ts (a 100,000-event log
 * read and validated at ≤ 1.5× a bare `JSON.parse` of its lines). Its
 * reference is the schema's own decoder: change the protocol schema, and the
 * property test `test/Guard.test.ts` shows where this guard must follow.
 *
 * A schema's AST compiled to a plain predicate that accepts exactly what the
 * schema's decoder (`Schema.decodeUnknownEither`) accepts, for schemas whose
 * decoded value is the input itself (no transformations, as in the protocol).
 * Loading a log validates every line through the protocol schemas; the
 * generic parser allocates a result per node, which costs more than parsing
 * the line's JSON. The compiled form walks the same AST (same literals, keys,
 * optional keys, refinement filters) without those results. Nodes it does not
 * know are delegated to the decoder, so it is total; a property test pins its
 * agreement with the decoder on the event schema.
 *
 * Like the decoder, it accepts a missing required key whose type accepts
 * `undefined` (`Schema.Unknown`): `JSON.stringify` drops an `undefined` value,
 * and a log must load what its writer could write.
 */
import { Either, Option, Schema, SchemaAST } from "effect"

export type Guard = (input: unknown) => boolean

const decodeOptions: SchemaAST.ParseOptions = {}

const isRecord = (u: unknown): u is Record<PropertyKey, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const hasOwn = Object.prototype.hasOwnProperty

const fallback = (ast: SchemaAST.AST): Guard => {
  const decode = Schema.decodeUnknownEither(Schema.make(ast))
  return (u) => Either.isRight(decode(u))
}

const compileTypeLiteral = (ast: SchemaAST.TypeLiteral): Guard => {
  if (ast.indexSignatures.length > 0) return fallback(ast)
  if (ast.propertySignatures.length === 0) return (u) => u !== null && u !== undefined
  // Literal-valued keys first: they reject the wrong union member cheapest.
  const signatures = [...ast.propertySignatures].sort((a, b) => Number(SchemaAST.isLiteral(b.type)) - Number(SchemaAST.isLiteral(a.type)))
  const names = signatures.map((ps) => ps.name)
  const optional = signatures.map((ps) => ps.isOptional)
  const guards = signatures.map((ps) => compile(ps.type))
  const n = signatures.length
  return (u) => {
    if (!isRecord(u)) return false
    for (let i = 0; i < n; i++) {
      const name = names[i]!
      if (!hasOwn.call(u, name)) {
        if (optional[i]) continue
        if (!guards[i]!(undefined)) return false
        continue
      }
      if (!guards[i]!(u[name])) return false
    }
    return true
  }
}

const compile = (ast: SchemaAST.AST): Guard => {
  switch (ast._tag) {
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "UnknownKeyword":
    case "AnyKeyword":
      return () => true
    case "UndefinedKeyword":
      return (u) => u === undefined
    case "NeverKeyword":
      return () => false
    case "TypeLiteral":
      return compileTypeLiteral(ast)
    case "TupleType": {
      if (ast.elements.length > 0 || ast.rest.length !== 1) return fallback(ast)
      const item = compile(ast.rest[0]!.type)
      return (u) => {
        if (!Array.isArray(u)) return false
        for (let i = 0; i < u.length; i++) if (!item(u[i])) return false
        return true
      }
    }
    case "Union": {
      const members = ast.types.map(compile)
      return (u) => {
        for (let i = 0; i < members.length; i++) if (members[i]!(u)) return true
        return false
      }
    }
    case "Refinement": {
      const from = compile(ast.from)
      const refinement = ast
      return (u) => from(u) && Option.isNone(refinement.filter(u, decodeOptions, refinement))
    }
    case "Suspend": {
      let guard: Guard | undefined
      const f = ast.f
      return (u) => (guard ??= compile(f()))(u)
    }
    case "Transformation":
      // A transformation changes the value: only the decoder can say.
      return fallback(ast)
    default:
      return fallback(ast)
  }
}

/** A predicate equivalent to `Either.isRight(Schema.decodeUnknownEither(schema)(input))`, compiled once. */
export const compileGuard = <A, I, R>(schema: Schema.Schema<A, I, R>): (input: unknown) => input is A => compile(schema.ast) as (input: unknown) => input is A
