/** A single-range request (RFC 9110 §14), resolved against the file size. */
export type RangeRequest =
  | { readonly _tag: "Full" }
  | { readonly _tag: "Partial"; readonly start: number; readonly end: number }
  | { readonly _tag: "Unsatisfiable" }

const FULL: RangeRequest = { _tag: "Full" }
const UNSATISFIABLE: RangeRequest = { _tag: "Unsatisfiable" }

/**
 * `bytes=a-b`, `bytes=a-` and `bytes=-n`; `end` is inclusive and clamped to the last byte. A header we don't
 * understand, another unit or several ranges are ignored (the whole file is served), as RFC 9110 allows.
 */
export const parseRange = (header: string | undefined, size: number): RangeRequest => {
  if (header === undefined) return FULL
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (match === null) return FULL
  const [, first, last] = match
  if (first === "" && last === "") return FULL
  if (first === "") {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return UNSATISFIABLE
    return { _tag: "Partial", start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(first)
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1)
  if (!Number.isSafeInteger(start) || start >= size) return UNSATISFIABLE
  if (last !== "" && Number(last) < start) return FULL
  return { _tag: "Partial", start, end }
}
