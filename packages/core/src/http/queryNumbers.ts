import { Schema } from "effect"

/** PostgreSQL `integer`'s range: a query number beyond it would reach the database and fail there (issue 29). */
export const INT32_MIN = -2_147_483_648
export const INT32_MAX = 2_147_483_647

/**
 * An integer query parameter (`?limit=`, `?year_from=`): decimal text, a whole number that fits the `integer`
 * columns it is compared with. Routes narrow it further (`Schema.between`, clamps) where the contract says.
 */
export const IntFromQuery = Schema.NumberFromString.pipe(
  Schema.int(),
  Schema.between(INT32_MIN, INT32_MAX, { message: () => "an integer between -2147483648 and 2147483647" }),
)
