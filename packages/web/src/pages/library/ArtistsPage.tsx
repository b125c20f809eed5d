import { useSignal } from "@preact/signals"
import { type Artist, searchKeyOf } from "@tonearm/core"
import { useEffect, useRef } from "preact/hooks"
import { Cover } from "../../components/Cover.js"
import { plural } from "../../components/format.js"
import { useWindowedRange } from "../../components/TrackList.js"
import { api, errorMessage } from "../../state/api.js"
import { currentLibrary, libraryParam } from "../../state/libraries.js"

const PAGE = 100
const ROW = 64

/** The jump bar: digits and symbols (`#`), then A–Z. */
const LETTERS = ["#", ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"] as const

/**
 * The section an artist is listed under: the first letter of its sort name folded the way the server sorts
 * (its sort key: case, accents and ligatures folded, compared byte-wise), so sections follow the list's order:
 * `#` (digits, symbols) first, then A–Z, then other scripts under their own first letter.
 */
export const letterOf = (sortName: string): string => {
  const first = [...searchKeyOf(sortName)][0] ?? ""
  if (first === "" || first < "a") return "#"
  return first.toUpperCase()
}

/** A letter's place in the list's order, for the jump's binary search. */
const rankOf = (letter: string) => (letter === "#" ? 0 : /^[A-Z]$/.test(letter) ? letter.charCodeAt(0) - 64 : 27)

/**
 * Library › Artists: every artist A–Z by sort name (GET /api/library/artists), each row with their picture (or the
 * placeholder), album and track counts, linking to their page. Pages of 100 are fetched as the list scrolls;
 * rows are windowed like the album list. The letter bar jumps to a section: a binary search over the sorted
 * list (fetching the pages it lands on) finds its first artist.
 */
export default function ArtistsPage() {
  const items = useSignal<ReadonlyArray<Artist | undefined>>([])
  const total = useSignal<number | undefined>(undefined)
  const error = useSignal<string | undefined>(undefined)
  const jumpMessage = useSignal("")
  const focusAt = useSignal<number | undefined>(undefined)
  const { container, range } = useWindowedRange(items.value.length, ROW)
  const pending = useRef(new Map<number, Promise<void>>())

  /** Fetches the page at `offset` once (concurrent asks share the request) and fills it into the list. */
  const loadPage = (offset: number, signal?: AbortSignal): Promise<void> => {
    const known = pending.current.get(offset)
    if (known !== undefined) return known
    const request = api(
      (client) => client.library.artists({ urlParams: { offset, limit: PAGE, ...libraryParam() } }),
      signal,
    ).then((page) => {
      total.value = page.total
      const list =
        items.value.length === page.total
          ? [...items.value]
          : Array.from({ length: page.total }, (_, at) => items.value[at])
      for (const [at, artist] of page.items.entries()) list[offset + at] = artist
      items.value = list
    })
    pending.current.set(offset, request)
    request.catch(() => pending.current.delete(offset))
    return request
  }

  useEffect(() => {
    const controller = new AbortController()
    // Another library chosen: the list starts again.
    pending.current.clear()
    items.value = []
    loadPage(0, controller.signal).catch((failure: unknown) => {
      if (!controller.signal.aborted) error.value = errorMessage(failure)
    })
    return () => controller.abort()
  }, [currentLibrary.value])

  // Fetch the page under the visible rows when it is not loaded yet.
  useEffect(() => {
    const missing = items.value.slice(range.start, range.end).indexOf(undefined)
    if (missing < 0) return
    const offset = Math.floor((range.start + missing) / PAGE) * PAGE
    loadPage(offset).catch((failure: unknown) => (error.value = errorMessage(failure)))
  }, [range.start, range.end, items.value])

  // After a jump, the section's first artist takes the focus once its row is on screen.
  useEffect(() => {
    const at = focusAt.value
    if (at === undefined) return
    const link = document.querySelector<HTMLAnchorElement>(`[data-artist-index="${at}"] a`)
    if (link === null) return
    link.focus({ preventScroll: true })
    focusAt.value = undefined
  }, [focusAt.value, items.value, range.start, range.end])

  const artistAt = async (at: number): Promise<Artist> => {
    const known = items.value[at]
    if (known !== undefined) return known
    await loadPage(Math.floor(at / PAGE) * PAGE)
    return items.value[at]!
  }

  const jump = async (letter: string) => {
    const count = total.value
    if (count === undefined) return
    const target = rankOf(letter)
    jumpMessage.value = ""
    try {
      // The first artist whose section is at or after the letter.
      let low = 0
      let high = count
      while (low < high) {
        const middle = (low + high) >> 1
        if (rankOf(letterOf((await artistAt(middle)).sort_name)) >= target) high = middle
        else low = middle + 1
      }
      if (low >= count) {
        jumpMessage.value = `No artists under ${letter}.`
        return
      }
      const found = await artistAt(low)
      const landed = letterOf(found.sort_name)
      jumpMessage.value =
        landed === letter ? `Artists under ${letter}.` : `No artists under ${letter}: ${landed} instead.`
      const element = container.current
      if (element !== null) {
        // Below the letter bar, which sticks to the top of the window.
        const bar = document.querySelector(".letters")?.getBoundingClientRect().height ?? 0
        const top = element.getBoundingClientRect().top + window.scrollY + low * ROW
        window.scrollTo({ top: Math.max(0, top - bar - 8) })
      }
      focusAt.value = low
    } catch (failure) {
      jumpMessage.value = `Could not jump: ${errorMessage(failure)}`
    }
  }

  const list = items.value
  return (
    <section>
      <h1>Artists</h1>
      <p class="muted" aria-live="polite">
        {total.value === undefined ? "Loading…" : plural(total.value, "artist")}
      </p>
      {error.value !== undefined && <p role="alert">Could not load: {error.value}</p>}
      {/* Shown once there is something to jump to: disabled letters in a scrolling strip cannot be reached by keyboard. */}
      {(total.value ?? 0) > 0 && (
        <nav class="letters" aria-label="Jump to letter">
          <ul>
            {LETTERS.map((letter) => (
              <li key={letter}>
                <button
                  type="button"
                  aria-label={letter === "#" ? "Jump to digits and symbols" : `Jump to ${letter}`}
                  onClick={() => void jump(letter)}
                >
                  {letter}
                </button>
              </li>
            ))}
          </ul>
          <span class="visually-hidden" aria-live="polite">
            {jumpMessage.value}
          </span>
        </nav>
      )}
      {total.value === 0 && <p class="muted">No artists yet: scan a library.</p>}
      <div
        ref={container}
        class="virtual artist-list"
        style={{ height: list.length * ROW, paddingTop: range.start * ROW }}
      >
        <ul class="list" aria-label="Artists">
          {list.slice(range.start, range.end).map((artist, offset) => {
            const at = range.start + offset
            const letter = artist === undefined ? undefined : letterOf(artist.sort_name)
            const previous = at === 0 ? undefined : list[at - 1]
            const startsSection =
              letter !== undefined && (at === 0 || (previous !== undefined && letterOf(previous.sort_name) !== letter))
            return (
              <li
                key={at}
                style={{ height: ROW }}
                aria-setsize={list.length}
                aria-posinset={at + 1}
                data-artist-index={at}
                data-letter={letter}
              >
                <span class="letter" aria-hidden="true">
                  {startsSection ? letter : ""}
                </span>
                {artist === undefined ? (
                  <span class="muted">…</span>
                ) : (
                  <>
                    <Cover src={artist.cover_url} alt="" size={48} kind="artist" />
                    <a href={`/artists/${artist.id}`}>{artist.name}</a>
                    <span class="muted counts">
                      {plural(artist.album_count, "album")} · {plural(artist.track_count, "track")}
                    </span>
                  </>
                )}
              </li>
            )
          })}
        </ul>
      </div>
    </section>
  )
}
