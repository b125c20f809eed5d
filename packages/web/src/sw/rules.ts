/**
 * The service worker's pure rules: which requests it answers, and how a Range request is cut out of a downloaded
 * track. Imported by the service worker alone (a module shared with the app would become a chunk `sw.js` imports,
 * which a classic service worker cannot), so the app names the downloads cache itself (`state/offline.ts`).
 */

/** Offline downloads (tracks, their album or playlist JSON, covers): kept until the listener removes them. */
export const DOWNLOADS_CACHE = "tonearm-downloads"
/** The app shell of one build; a new build's worker deletes the others. */
export const SHELL_CACHE_PREFIX = "tonearm-shell-"

/** A track's audio (any `?format=`): answered from the downloads when the track was downloaded. */
export const isStreamPath = (pathname: string) => /^\/api\/tracks\/[^/]+\/stream$/.test(pathname)

/** Page loads that are never the app (the server's own pages): the worker leaves them to the network. */
export const isAppPage = (pathname: string) =>
  !/^\/(?:api|rest|docs|openapi\.json|healthz|forgot-password|reset-password)(?:[/.?]|$)/.test(pathname)

export type RangeAnswer =
  | { readonly status: 200; readonly headers: Readonly<Record<string, string>> }
  | {
      readonly status: 206
      readonly start: number
      readonly end: number
      readonly headers: Readonly<Record<string, string>>
    }
  | { readonly status: 416; readonly headers: Readonly<Record<string, string>> }

/**
 * How to answer a request for a body of `size` bytes with this `Range` header (RFC 9110 §14): one range of bytes
 * (`a-b`, `a-`, `-n` suffix) is a 206 with its slice; a range starting past the end is 416; no header, another
 * unit, a malformed value or several ranges are the whole body (a server may ignore Range). The end is inclusive.
 */
export const rangeAnswer = (range: string | null, size: number): RangeAnswer => {
  const whole = { status: 200 as const, headers: { "accept-ranges": "bytes", "content-length": String(size) } }
  const match = range === null ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(range)
  if (match === null) return whole
  const [, first = "", last = ""] = match
  let start: number
  let end: number
  if (first === "") {
    if (last === "") return whole
    const suffix = Number(last)
    if (suffix === 0) return unsatisfiable(size)
    start = Math.max(0, size - suffix)
    end = size - 1
  } else {
    start = Number(first)
    end = last === "" ? size - 1 : Math.min(Number(last), size - 1)
    if (last !== "" && Number(last) < start) return whole // an invalid range is ignored
  }
  if (start >= size) return unsatisfiable(size)
  return {
    status: 206,
    start,
    end,
    headers: {
      "accept-ranges": "bytes",
      "content-range": `bytes ${start}-${end}/${size}`,
      "content-length": String(end - start + 1),
    },
  }
}

const unsatisfiable = (size: number): RangeAnswer => ({
  status: 416,
  headers: { "accept-ranges": "bytes", "content-range": `bytes */${size}` },
})
