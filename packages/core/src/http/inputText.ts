/**
 * The boundary rule for text that arrives over HTTP (issue 29): PostgreSQL cannot store a NUL character, and a
 * lone UTF-16 surrogate is not a character at all, so either in a query parameter or a JSON string is refused
 * with 400 naming where it was, before any rule or statement sees it. JSON nested deeper than anything the
 * contract describes is refused before it is decoded (a 20,000-deep array would otherwise exhaust the stack).
 */

/** Deeper than any body of the contract (its deepest is 4: smart-playlist rules nest a little more). */
export const MAX_JSON_DEPTH = 32

/** What is wrong with a text, or undefined when it is fine. */
export const badTextReason = (text: string): string | undefined => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0) return "must not contain a NUL character"
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        i += 1
        continue
      }
      return "must not contain an unpaired surrogate (not valid Unicode)"
    }
    if (code >= 0xdc00 && code <= 0xdfff) return "must not contain an unpaired surrogate (not valid Unicode)"
  }
  return undefined
}

/**
 * Whether the JSON text nests arrays and objects deeper than `max`: a linear scan that skips strings, so it costs
 * nothing like a parse and never recurses.
 */
export const jsonNestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 92 /* \ */) i += 1
      else if (char === 34 /* " */) inString = false
    } else if (char === 34) inString = true
    else if (char === 91 /* [ */ || char === 123 /* { */) {
      depth += 1
      if (depth > max) return true
    } else if (char === 93 /* ] */ || char === 125 /* } */) depth -= 1
  }
  return false
}

/** A problem found in a request's text: the field (a JSON path like `tracks.2.name`, or a query key) and why. */
export interface BadText {
  readonly field: string
  readonly reason: string
}

/** The first key or string value of a parsed JSON body that breaks the text rule (depth already bounded). */
export const findBadJsonText = (value: unknown, path: ReadonlyArray<string> = []): BadText | undefined => {
  const here = () => (path.length === 0 ? "body" : path.join("."))
  if (typeof value === "string") {
    const reason = badTextReason(value)
    return reason === undefined ? undefined : { field: here(), reason }
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBadJsonText(value[i], [...path, String(i)])
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const keyReason = badTextReason(key)
      if (keyReason !== undefined) return { field: `${here()} (a key)`, reason: keyReason }
      const found = findBadJsonText(inner, [...path, key])
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * The first path segment or query parameter of a request target that breaks the text rule, or is not valid
 * percent-encoding (`%E0%A4%A`, an encoded lone surrogate `%ED%A0%80`).
 */
export const findBadUrlText = (target: string): BadText | undefined => {
  const queryAt = target.indexOf("?")
  const pathPart = queryAt === -1 ? target : target.slice(0, queryAt)
  const query = queryAt === -1 ? "" : target.slice(queryAt + 1)
  const decode = (raw: string, field: string): BadText | undefined => {
    let text: string
    try {
      text = decodeURIComponent(raw.replace(/\+/g, " "))
    } catch {
      return { field, reason: "is not valid percent-encoded UTF-8" }
    }
    const reason = badTextReason(text)
    return reason === undefined ? undefined : { field, reason }
  }
  for (const segment of pathPart.split("/")) {
    const found = decode(segment, "path")
    if (found !== undefined) return found
  }
  if (query === "") return undefined
  for (const pair of query.split("&")) {
    const equals = pair.indexOf("=")
    const rawKey = equals === -1 ? pair : pair.slice(0, equals)
    let key = rawKey
    try {
      key = decodeURIComponent(rawKey.replace(/\+/g, " "))
    } catch {
      return { field: "query", reason: "is not valid percent-encoded UTF-8" }
    }
    const keyReason = badTextReason(key)
    if (keyReason !== undefined) return { field: "query (a parameter name)", reason: keyReason }
    if (equals !== -1) {
      const found = decode(pair.slice(equals + 1), key)
      if (found !== undefined) return found
    }
  }
  return undefined
}
