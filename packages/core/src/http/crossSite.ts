/**
 * Cookie-authenticated state changes from another site are refused (issue 29 item 5): SameSite=Lax lets a page of
 * a sibling app on the same host (`https://other.example.com` next to `https://music.example.com`, or another port)
 * send the cookie, and a form POST from anywhere is a top-level navigation. Bearer tokens and Subsonic credentials
 * are never sent by a browser on its own, so only the cookie needs this.
 */
export interface RequestOrigin {
  readonly method: string
  /** `Sec-Fetch-Site`, sent by every current browser. */
  readonly secFetchSite: string | undefined
  /** `Origin`, sent by browsers on every cross-origin request and every POST. */
  readonly origin: string | undefined
  /** The host names the client may have used: `Host`, and `X-Forwarded-Host` behind a proxy. */
  readonly hosts: ReadonlyArray<string>
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/** Why a cookie may not authenticate this request, or undefined when it may. */
export const crossSiteRefusal = (request: RequestOrigin): string | undefined => {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return undefined
  const site = request.secFetchSite?.toLowerCase()
  if (site !== undefined) {
    // `none`: the user's own action (a bookmark, the address bar); never a page of another site.
    if (site === "same-origin" || site === "none") return undefined
    return `a ${site} request may not use the session cookie to change anything`
  }
  // An older browser: the Origin header tells the page that sent it. No Origin at all: not a browser page.
  if (request.origin === undefined) return undefined
  let host: string
  try {
    host = new URL(request.origin).host.toLowerCase()
  } catch {
    return "a request from an opaque origin may not use the session cookie to change anything"
  }
  return request.hosts.some((candidate) => candidate.toLowerCase() === host)
    ? undefined
    : `a request from ${request.origin} may not use the session cookie to change anything`
}
