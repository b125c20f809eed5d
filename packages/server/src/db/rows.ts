import { Effect, Option, Schema } from "effect"

/** Decode every row a query returned: schema drift fails loudly in the repository, not in a handler. */
export const decodeRows =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (rows: ReadonlyArray<unknown>) =>
    Schema.decodeUnknown(Schema.Array(schema))(rows)

/** Decode the first row, if any. */
export const decodeFirst =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (rows: ReadonlyArray<unknown>) =>
    rows.length === 0 ? Effect.succeedNone : Effect.map(Schema.decodeUnknown(schema)(rows[0]), Option.some)
