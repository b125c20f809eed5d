import { useSignal } from "@preact/signals"
import type { SearchResult } from "@tonearm/core"
import { useEffect, useRef } from "preact/hooks"
import { CardRow } from "../../components/Cards.js"
import { plural } from "../../components/format.js"
import { TrackList } from "../../components/TrackList.js"
import { api, errorMessage } from "../../state/api.js"
import { currentLibrary, libraryParam } from "../../state/libraries.js"
import { navigate, query } from "../../state/router.js"

const DEBOUNCE_MS = 200

/**
 * Search as you type: a request 200 ms after the last key, the previous one aborted, so a slow answer for "ro"
 * never replaces the one for "rock". The query is kept in the address (`?q=`) so back and reload keep it.
 */
export default function SearchPage() {
  const text = useSignal(query.value.get("q") ?? "")
  const result = useSignal<SearchResult | undefined>(undefined)
  const error = useSignal<string | undefined>(undefined)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.focus(), [])
  useEffect(() => {
    const q = text.value.trim()
    if (q === "") {
      result.value = undefined
      return
    }
    const controller = new AbortController()
    const timer = setTimeout(() => {
      navigate(`/search?q=${encodeURIComponent(q)}`, { replace: true })
      api(
        (client) => client.library.search({ urlParams: { q, limit: 50, ...libraryParam() } }),
        controller.signal,
      ).then(
        (found) => {
          if (controller.signal.aborted) return
          result.value = found
          error.value = undefined
        },
        (failure: unknown) => {
          if (!controller.signal.aborted) error.value = errorMessage(failure)
        },
      )
    }, DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [text.value, currentLibrary.value])
  const found = result.value
  const count = found === undefined ? 0 : found.artists.length + found.albums.length + found.tracks.length
  return (
    <section>
      <h1>Search</h1>
      <input
        ref={input}
        type="search"
        class="search-box"
        aria-label="Search artists, albums and tracks"
        placeholder="Artists, albums, tracks"
        value={text.value}
        onInput={(event) => (text.value = (event.currentTarget as HTMLInputElement).value)}
      />
      <p class="muted" aria-live="polite">
        {error.value !== undefined
          ? `Search failed: ${error.value}`
          : found === undefined
            ? ""
            : plural(count, "result")}
      </p>
      {found !== undefined && (
        <>
          {found.artists.length > 0 && <CardRow title="Artists" artists={found.artists} />}
          {found.albums.length > 0 && <CardRow title="Albums" albums={found.albums} />}
          {found.tracks.length > 0 && (
            <section aria-labelledby="search-tracks">
              <h2 id="search-tracks">Tracks</h2>
              <TrackList tracks={found.tracks} label="Tracks found" showAlbum />
            </section>
          )}
        </>
      )}
    </section>
  )
}
