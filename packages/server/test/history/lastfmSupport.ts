/** A fake Last.fm `user.getRecentTracks` for the pull's tests: paged answers, scripted failures, a held page. */
import type { FakeAnswer, FakeRequest, FakeServer } from "../support/fakeServer.js"

export const LASTFM_KEY = "test-lastfm-key"

/** One scrobble of the fake's store. */
export interface Scrobble {
  readonly artist: string
  readonly title: string
  readonly album: string | null
  /** When it started, epoch seconds. */
  readonly uts: number
  readonly mbid?: string
}

export interface FakeLastfm {
  /** Each account's scrobbles (any order; served newest first). Names are matched case-insensitively. */
  readonly users: Map<string, Array<Scrobble>>
  /** What each account is playing now (served first on page 1, without a date, as Last.fm does). */
  readonly nowPlaying: Map<string, Scrobble>
  /** Answers given in order, once each, per account (`"page"`: the page itself); then pages again. */
  readonly script: Map<string, Array<FakeAnswer | "page">>
  /** A page held unanswered (its first request only) until `release` is called. */
  hold: { readonly user: string; readonly page: number; release: () => void; held: boolean } | undefined
  /** Called when a page is asked for (before answering). */
  onPage: ((user: string, page: number) => void) | undefined
}

const entry = (scrobble: Scrobble, nowPlaying = false) => ({
  artist: { mbid: "", "#text": scrobble.artist },
  streamable: "0",
  image: [{ size: "small", "#text": "" }],
  mbid: scrobble.mbid ?? "",
  album: { mbid: "", "#text": scrobble.album ?? "" },
  name: scrobble.title,
  url: "https://www.last.fm/music/x/_/y",
  ...(nowPlaying
    ? { "@attr": { nowplaying: "true" } }
    : { date: { uts: String(scrobble.uts), "#text": new Date(scrobble.uts * 1000).toUTCString() } }),
})

/** Routes `GET /2.0/` on the server like Last.fm's API for `user.getrecenttracks`. */
export const fakeLastfm = (server: FakeServer): FakeLastfm => {
  const fake: FakeLastfm = {
    users: new Map(),
    nowPlaying: new Map(),
    script: new Map(),
    hold: undefined,
    onPage: undefined,
  }
  server.on("GET", "/2.0/", (request: FakeRequest): FakeAnswer | Promise<FakeAnswer> => {
    const query = request.query
    if (query.get("api_key") !== LASTFM_KEY)
      return {
        status: 403,
        body: { error: 10, message: "Invalid API key - You must be granted a valid key by last.fm" },
      }
    if (query.get("method") !== "user.getrecenttracks" || query.get("format") !== "json")
      return { status: 400, body: { error: 3, message: "Invalid Method - No method with that name in this package" } }
    const user = (query.get("user") ?? "").toLowerCase()
    const scrobbles = fake.users.get(user)
    if (scrobbles === undefined) return { status: 404, body: { error: 6, message: "User not found", links: [] } }
    const page = Number(query.get("page") ?? "1")
    fake.onPage?.(user, page)
    const scripted = fake.script.get(user)?.shift()
    if (scripted !== undefined && scripted !== "page") return scripted
    const answer = (): FakeAnswer => {
      const limit = Math.min(200, Number(query.get("limit") ?? "50"))
      const to = query.get("to") === null ? Number.POSITIVE_INFINITY : Number(query.get("to"))
      const from = query.get("from") === null ? 0 : Number(query.get("from"))
      const inRange = scrobbles.filter((s) => s.uts <= to && s.uts >= from).sort((a, b) => b.uts - a.uts)
      const totalPages = Math.ceil(inRange.length / limit)
      const playing = fake.nowPlaying.get(user)
      const tracks = [
        ...(page === 1 && playing !== undefined ? [entry(playing, true)] : []),
        ...inRange.slice((page - 1) * limit, page * limit).map((scrobble) => entry(scrobble)),
      ]
      return {
        body: {
          recenttracks: {
            // A single entry comes as an object, not a list (Last.fm's XML heritage).
            track: tracks.length === 1 ? tracks[0] : tracks,
            "@attr": {
              user,
              page: String(page),
              perPage: String(limit),
              totalPages: String(totalPages),
              total: String(inRange.length),
            },
          },
        },
      }
    }
    const hold = fake.hold
    if (hold !== undefined && !hold.held && hold.user === user && hold.page === page) {
      hold.held = true
      return new Promise<FakeAnswer>((resolve) => {
        hold.release = () => resolve(answer())
      })
    }
    return answer()
  })
  return fake
}

/** Requests for `user.getrecenttracks` of one account, in arrival order. */
export const pageRequests = (server: FakeServer, user: string) =>
  server
    .hits("/2.0/")
    .filter((request) => (request.query.get("user") ?? "").toLowerCase() === user.toLowerCase())
    .map((request) => ({
      page: Number(request.query.get("page")),
      limit: request.query.get("limit"),
      to: request.query.get("to"),
      extended: request.query.get("extended"),
      at: request.at,
    }))
