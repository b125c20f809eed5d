/**
 * `If-None-Match` (RFC 9110 §13.1.2): true when the header names the current entity tag, so a GET may
 * answer 304. The comparison is weak (§8.8.3.2): `W/"x"` matches `"x"` either way round, because a client
 * revalidating a cached image only needs "same content". `*` matches any existing representation. The
 * header is a comma-separated list; a comma inside a quoted tag is part of the tag, not a separator.
 */
export const ifNoneMatchHits = (header: string | undefined, etag: string): boolean => {
  if (header === undefined) return false
  const current = opaqueTag(etag)
  return entityTags(header).some((tag) => tag === "*" || opaqueTag(tag) === current)
}

/** The tag without its weakness marker: `W/"x"` and `"x"` both give `"x"`. */
const opaqueTag = (tag: string) => (tag.startsWith("W/") ? tag.slice(2) : tag)

/**
 * The members of an `If-None-Match` list, as written (`*`, `"x"`, `W/"x"`). An unquoted member (not valid,
 * but sent by some clients) is kept as its trimmed text, so it can only match an identical unquoted tag.
 */
export const entityTags = (header: string): ReadonlyArray<string> => {
  const tags: Array<string> = []
  let index = 0
  while (index < header.length) {
    const char = header[index]!
    if (char === "," || char === " " || char === "\t") {
      index += 1
      continue
    }
    const weak = header.startsWith("W/", index) ? 2 : 0
    if (header[index + weak] === '"') {
      const close = header.indexOf('"', index + weak + 1)
      const end = close === -1 ? header.length : close + 1
      tags.push(header.slice(index, end))
      index = end
      continue
    }
    const comma = header.indexOf(",", index)
    const end = comma === -1 ? header.length : comma
    tags.push(header.slice(index, end).trim())
    index = end
  }
  return tags
}
