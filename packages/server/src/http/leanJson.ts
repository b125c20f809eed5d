import { HttpServerResponse } from "@effect/platform"
import { DateTime, ParseResult, Schema, SchemaAST } from "effect"

/** A value of a schema's type to its encoded (JSON) form. */
type Encoder = (value: unknown) => unknown

const identity: Encoder = (value) => value

/** The slow, always-right encoder of a node the lean compiler does not know. */
const viaSchema = (ast: SchemaAST.AST): Encoder => ParseResult.encodeUnknownSync(Schema.make(ast))

const isNullOr = (ast: SchemaAST.Union): SchemaAST.AST | undefined => {
  const rest = ast.types.filter((member) => !(SchemaAST.isLiteral(member) && member.literal === null))
  return rest.length === 1 && ast.types.length === 2 ? rest[0] : undefined
}

const isDateTimeUtc = (ast: SchemaAST.Transformation) =>
  SchemaAST.isStringKeyword(ast.from) &&
  SchemaAST.isDeclaration(ast.to) &&
  SchemaAST.getIdentifierAnnotation(ast.to).pipe((id) => id._tag === "Some" && id.value === "DateTimeUtcFromSelf")

/**
 * Compiles an encoder that copies what the schema's encoding would produce without checking it again: property
 * by property for structs and classes, element by element for arrays, `DateTime.Utc` to its ISO string, refinements
 * and brands as their base. Anything else (other transformations, unions beyond `T | null`, records) is encoded by
 * the schema itself, so the output is always the schema's encoding of a well-typed value.
 */
const compile = (ast: SchemaAST.AST): Encoder => {
  switch (ast._tag) {
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "Literal":
    case "Enums":
    case "TemplateLiteral":
      return identity
    case "Refinement":
      return compile(ast.from)
    case "Suspend":
      return viaSchema(ast)
    case "Union": {
      const inner = isNullOr(ast)
      if (inner === undefined) return viaSchema(ast)
      const encode = compile(inner)
      return (value) => (value === null ? null : encode(value))
    }
    case "TupleType": {
      if (ast.elements.length > 0 || ast.rest.length !== 1) return viaSchema(ast)
      const element = compile(ast.rest[0]!.type)
      return (value) => (value as ReadonlyArray<unknown>).map(element)
    }
    case "TypeLiteral": {
      if (ast.indexSignatures.length > 0) return viaSchema(ast)
      const fields = ast.propertySignatures.map((property) => ({
        name: property.name as string,
        optional: property.isOptional,
        encode: compile(property.type),
      }))
      return (value) => {
        const source = value as Record<string, unknown>
        const out: Record<string, unknown> = {}
        for (const field of fields) {
          const own = source[field.name]
          if (own === undefined && field.optional) continue
          out[field.name] = field.encode(own)
        }
        return out
      }
    }
    case "Transformation": {
      // A Schema.Class: its encoded side is the struct of its fields, read off the instance.
      if (SchemaAST.isDeclaration(ast.to) && SchemaAST.isTypeLiteral(ast.from)) return compile(ast.from)
      if (isDateTimeUtc(ast)) return (value) => DateTime.formatIso(value as DateTime.Utc)
      return viaSchema(ast)
    }
    default:
      return viaSchema(ast)
  }
}

/**
 * Lean encoding for the hot read routes (issue 15): the service built the value from decoded rows, so encoding it
 * through the schema again (every uuid, date and integer checked once more, a class instance per item) was a large
 * share of a browse request. Answers the same JSON the contract's encoding would (tested property by property
 * against it), as a response the HttpApi passes through untouched.
 */
export const leanJson = <A, I>(schema: Schema.Schema<A, I>) => {
  const encode = compile(schema.ast)
  // An answer kept per library version (album pages, artist pages, search) is the same object on every hit: its
  // JSON text is kept beside it, so a hit writes the text instead of encoding and stringifying it again (a large
  // artist page is ~100 KB). Weakly: the text goes with the answer.
  const texts = new WeakMap<object, string>()
  return {
    encode: encode as (value: A) => I,
    respond: (value: A) => {
      if (typeof value !== "object" || value === null) return HttpServerResponse.unsafeJson(encode(value))
      let text = texts.get(value)
      if (text === undefined) {
        text = JSON.stringify(encode(value))
        texts.set(value, text)
      }
      return HttpServerResponse.text(text, { contentType: "application/json" })
    },
  }
}
