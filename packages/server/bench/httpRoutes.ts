/**
 * The routes `pnpm bench:http` drives (issue 15), as data: add a route here, or pass `--routes FILE` (a JSON array
 * of the same shape) to measure others, e.g. the Subsonic `/rest/...` ones.
 *
 * `path` may hold placeholders, filled from the scanned library and the bench's account before the run:
 *   {albumId} {artistId} {trackId}  an album that has a cover, its artist, its first track
 *   {genre}                         the most common genre ("Rock" in the generated library)
 *   {username} {password} {token}   the bench's account and its bearer token (e.g. Subsonic `u`/`p`)
 *   {apiKey}                        an OpenSubsonic API key of the bench's account (Subsonic `apiKey`)
 *   {word}                          a different two-letter word on every request (wrk's Lua script rotates them)
 *   {artistTitle}                   a word of that track's first artist and a word of its title ("muse uprising")
 *   {typo}                          a word of that track's artist or title with two letters swapped (a typo)
 *   {mostAlbumsArtistId} {mostTracksArtistId} {variousArtistsId}
 *                                   the artist with most albums of their own, the one credited on most tracks, and
 *                                   Various Artists (the largest artist pages)
 */
export interface BenchRoute {
  /** Short label in the table. */
  readonly name: string
  readonly path: string
  /** `bearer` (default) sends `Authorization: Bearer {token}`; `none` sends no credentials. */
  readonly auth?: "bearer" | "none"
  /** Extra request headers (placeholders allowed). */
  readonly headers?: Readonly<Record<string, string>>
}

/** The baseline every other route is compared with: no database, no auth, the smallest answer. */
export const HEALTHZ: BenchRoute = { name: "healthz", path: "/healthz", auth: "none" }

/** Issue 15's table, plus a cover and a stream of one hot track. */
export const DEFAULT_ROUTES: ReadonlyArray<BenchRoute> = [
  { name: "genres", path: "/api/library/genres" },
  { name: "albums title", path: "/api/library/albums?limit=50&sort=title" },
  { name: "albums genre", path: "/api/library/albums?genre={genre}&limit=10" },
  { name: "search the", path: "/api/search?q=the" },
  // Issue 31's search: a word being typed, an artist with a title, a typo (nothing matches: the closest items).
  { name: "search prefix", path: "/api/search?q=harb" },
  { name: "search artist+title", path: "/api/search?q={artistTitle}" },
  { name: "search typo", path: "/api/search?q={typo}" },
  // Never the same words twice (two-letter prefixes in turn): a search no cache has answered before.
  { name: "search new", path: "/api/search?q={word}" },
  { name: "album detail", path: "/api/albums/{albumId}" },
  { name: "artist detail", path: "/api/artists/{artistId}" },
  // Issue 31: the largest pages (most albums of their own, most credited tracks, Various Artists).
  { name: "artist most albums", path: "/api/artists/{mostAlbumsArtistId}" },
  { name: "artist most tracks", path: "/api/artists/{mostTracksArtistId}" },
  { name: "artist various", path: "/api/artists/{variousArtistsId}" },
  { name: "home", path: "/api/home" },
  { name: "cover 300", path: "/api/albums/{albumId}/cover?size=300" },
  { name: "stream", path: "/api/tracks/{trackId}/stream" },
]

/** Placeholders replaced by their values; an unknown one is left as is (the check request then shows it). */
export const fillPlaceholders = (text: string, values: Readonly<Record<string, string>>): string =>
  text.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => values[name] ?? whole)
