import { Effect, Option, type ParseResult, Schema } from "effect"

type ParseError = ParseResult.ParseError

// One compiled decoder per row schema: `Schema.Array(schema)` is a new AST each time, and a new AST means the
// parser is compiled again on every query (a tenth of a browse request's CPU at 100k tracks).
const arrayDecoders = new WeakMap<object, (rows: ReadonlyArray<unknown>) => Effect.Effect<unknown, ParseError>>()

/** Decode every row a query returned: schema drift fails loudly in the repository, not in a handler. */
export const decodeRows = <A, I>(
  schema: Schema.Schema<A, I>,
): ((rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, ParseError>) => {
  const known = arrayDecoders.get(schema) as
    | ((rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, ParseError>)
    | undefined
  if (known !== undefined) return known
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  arrayDecoders.set(schema, decode)
  return decode
}

/** Decode the first row, if any. */
export const decodeFirst =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (rows: ReadonlyArray<unknown>) =>
    rows.length === 0 ? Effect.succeedNone : Effect.map(Schema.decodeUnknown(schema)(rows[0]), Option.some)

/** A page of rows and the count of all of them (`SELECT count(*)::int AS n …`), read side by side. */
export const withTotal = <A, E, R, E2, R2>(
  items: Effect.Effect<ReadonlyArray<A>, E, R>,
  count: Effect.Effect<ReadonlyArray<{ readonly n: number }>, E2, R2>,
) =>
  Effect.all([items, Effect.map(count, (rows) => rows[0]?.n ?? 0)], { concurrency: 2 }).pipe(
    Effect.map(([rows, total]) => ({ items: rows, total })),
  )
