// Columns of an aggregate row: a whole result sent by PostgreSQL as one row, texts as JSON arrays and numbers as
// big-endian float8 bytes, decoded where it is used (the recommendation engine's thread). No SQL and no services
// here: the engine's worker imports this file.

/**
 * Whether `u` has an aggregate's field types: a non-negative integer count, strings and byte arrays. Constant time:
 * a repository checks this much, and the readers below check the values where they are decoded.
 */
export const hasAggregateFields = (
  u: unknown,
  count: string,
  texts: ReadonlyArray<string>,
  bytes: ReadonlyArray<string>,
): u is Record<string, unknown> => {
  if (typeof u !== "object" || u === null) return false
  const row = u as Record<string, unknown>
  const n = row[count]
  return (
    typeof n === "number" &&
    Number.isInteger(n) &&
    n >= 0 &&
    texts.every((name) => typeof row[name] === "string") &&
    bytes.every((name) => row[name] instanceof Uint8Array)
  )
}

/**
 * Readers of one kind of aggregate (`what`: "play history", "catalog"), each checking its column and throwing on
 * a malformed one (a defect: SQL makes them).
 */
export const aggregateColumns = (what: string, rows: string) => {
  const invalid = (detail: string) => new Error(`malformed ${what}: ${detail}`)

  /** `length` float8 values. */
  const floats = (bytes: Uint8Array, length: number, name: string) => {
    if (bytes.byteLength !== length * 8) throw invalid(`${name} holds ${bytes.byteLength} bytes for ${length} ${rows}`)
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const out = new Float64Array(length)
    for (let i = 0; i < length; i++) out[i] = view.getFloat64(i * 8, false)
    return out
  }

  /** A JSON array, of `length` values when given. */
  const array = (json: string, length: number | undefined, name: string): ReadonlyArray<unknown> => {
    let parsed: unknown
    try {
      parsed = JSON.parse(json)
    } catch {
      throw invalid(`${name} is not JSON`)
    }
    if (!Array.isArray(parsed)) throw invalid(`${name} is not an array`)
    if (length !== undefined && parsed.length !== length) throw invalid(`${name} does not hold ${length} values`)
    return parsed
  }

  /** A JSON array of `length` texts, or nulls too when `nullable`. */
  const texts = (json: string, length: number, name: string, nullable: boolean): ReadonlyArray<string | null> => {
    const parsed = array(json, length, name)
    for (const value of parsed)
      if (!(typeof value === "string" || (nullable && value === null))) throw invalid(`${name} holds a non-text`)
    return parsed as ReadonlyArray<string | null>
  }

  return { invalid, floats, array, texts } as const
}
