import { useSignal } from "@preact/signals"
import type { AlbumRef } from "@tonearm/core"
import { useEffect } from "preact/hooks"
import { AlbumArtists } from "../../components/ArtistLinks.js"
import { Cover } from "../../components/Cover.js"
import { plural } from "../../components/format.js"
import { RadioButton } from "../../components/RadioButton.js"
import { useWindowedRange } from "../../components/TrackList.js"
import { api, errorMessage } from "../../state/api.js"
import { currentLibrary, libraryParam } from "../../state/libraries.js"
import { navigate, query } from "../../state/router.js"

const PAGE = 500
const ROW = 64

/**
 * Every album, or those of a genre (`?genre=`, slash-safe: the genre rule's query parameter) or a year range
 * (`?year_from=&year_to=`). Pages of 500 are fetched as the list scrolls; rows are windowed.
 */
export default function AlbumsPage() {
  const params = query.value
  const genre = params.get("genre") ?? undefined
  const yearFrom = params.get("year_from") ?? undefined
  const yearTo = params.get("year_to") ?? undefined
  const sort = (params.get("sort") ?? "title") as "title" | "year" | "added" | "artist"
  const items = useSignal<ReadonlyArray<AlbumRef | undefined>>([])
  const error = useSignal<string | undefined>(undefined)
  const total = useSignal<number | undefined>(undefined)
  const loading = useSignal(new Set<number>())
  const { container, range } = useWindowedRange(items.value.length, ROW)

  const fetchPage = (offset: number, signal?: AbortSignal) =>
    api(
      (client) =>
        client.library.albums({
          urlParams: {
            ...(genre !== undefined ? { genre } : {}),
            ...(yearFrom !== undefined ? { year_from: Number(yearFrom) } : {}),
            ...(yearTo !== undefined ? { year_to: Number(yearTo) } : {}),
            sort,
            offset,
            limit: PAGE,
            ...libraryParam(),
          },
        }),
      signal,
    )

  useEffect(() => {
    const controller = new AbortController()
    items.value = []
    loading.value = new Set([0])
    total.value = undefined
    error.value = undefined
    fetchPage(0, controller.signal).then(
      (page) => {
        total.value = page.total
        const list: Array<AlbumRef | undefined> = new Array(page.total).fill(undefined)
        for (const [at, album] of page.items.entries()) list[at] = album
        items.value = list
      },
      (failure: unknown) => {
        if (!controller.signal.aborted) error.value = errorMessage(failure)
      },
    )
    return () => controller.abort()
  }, [genre, yearFrom, yearTo, sort, currentLibrary.value])

  // Fetch the page under the visible rows when it is not loaded yet.
  useEffect(() => {
    const missing = items.value.slice(range.start, range.end).indexOf(undefined)
    if (missing < 0) return
    const offset = Math.floor((range.start + missing) / PAGE) * PAGE
    if (loading.value.has(offset)) return
    loading.value.add(offset)
    void fetchPage(offset).then((page) => {
      const list = [...items.value]
      for (const [at, album] of page.items.entries()) list[offset + at] = album
      items.value = list
    })
  }, [range.start, range.end, items.value])

  const title =
    genre !== undefined
      ? `Albums: ${genre}`
      : yearFrom !== undefined
        ? `Albums: ${yearFrom === yearTo ? yearFrom : `${yearFrom}–${yearTo ?? ""}`}`
        : "Albums"
  const setSort = (value: string) => {
    const next = new URLSearchParams(params)
    next.set("sort", value)
    navigate(`/albums?${next.toString().replace(/\+/g, "%20")}`, { replace: true })
  }
  return (
    <section>
      <h1>{title}</h1>
      <p class="actions">
        {genre !== undefined && <RadioButton seed={{ kind: "genre", value: genre }} label={genre} />}
        <label>
          Sort by{" "}
          <select value={sort} onChange={(event) => setSort((event.currentTarget as HTMLSelectElement).value)}>
            <option value="title">Title</option>
            <option value="artist">Artist</option>
            <option value="year">Year</option>
            <option value="added">Recently added</option>
          </select>
        </label>{" "}
        <span class="muted" aria-live="polite">
          {total.value === undefined ? "Loading…" : plural(total.value, "album")}
        </span>
      </p>
      {error.value !== undefined && <p role="alert">Could not load: {error.value}</p>}
      <div
        ref={container}
        class="virtual album-list"
        style={{ height: items.value.length * ROW, paddingTop: range.start * ROW }}
      >
        <ul class="list" aria-label={title}>
          {items.value.slice(range.start, range.end).map((album, offset) => (
            <li
              key={range.start + offset}
              style={{ height: ROW }}
              aria-setsize={items.value.length}
              aria-posinset={range.start + offset + 1}
            >
              {album === undefined ? (
                <span class="muted">…</span>
              ) : (
                <>
                  <Cover src={album.cover_url} alt="" size={48} />
                  <a href={`/albums/${album.id}`}>
                    {album.title}
                    {album.version !== null && (
                      <>
                        {" "}
                        <span class="edition">{album.version}</span>
                      </>
                    )}
                  </a>
                  <span class="muted">
                    <AlbumArtists album={album} />
                    {album.year > 0 ? ` · ${album.year}` : ""}
                  </span>
                </>
              )}
            </li>
          ))}
        </ul>
      </div>
    </section>
  )
}
