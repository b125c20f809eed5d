import { useSignal } from "@preact/signals"
import { api, errorMessage } from "../state/api.js"
import { loadPlaylists, playlists, playlistsError, playlistsLoaded } from "../state/playlists.js"
import { plural } from "./format.js"

/**
 * The empty state of every page made from the user's mixes (For You, Discover, Mixes, Home): what the page will
 * hold, why it is empty (the mixes are made at 03:00, and were not made yet), and "Make my mixes now", which
 * builds this user's snapshot on the server now (POST /api/me/mixes/build) and then shows the result: the mixes,
 * or why some stay locked.
 */
export function MakeMixes(props: { readonly holds: string }) {
  const busy = useSignal(false)
  const outcome = useSignal("")
  const failure = useSignal("")
  const build = async () => {
    busy.value = true
    outcome.value = ""
    failure.value = ""
    try {
      const built = await api((client) => client.systemPlaylists.build())
      await loadPlaylists()
      outcome.value =
        built.withheld === 0
          ? `Made ${plural(built.playlists, "mix", "mixes")}.`
          : `Made ${plural(built.playlists, "mix", "mixes")}; ${built.withheld} stay locked until you have listened a little more.`
    } catch (error) {
      failure.value = `Could not make your mixes: ${errorMessage(error)}`
    } finally {
      busy.value = false
    }
  }
  const locked = playlists.value.filter((row) => row.system_variant !== null && row.locked)
  return (
    <div class="empty-state" data-empty="mixes">
      <p>{props.holds}</p>
      <p class="muted">
        Tonearm makes your mixes every night at 03:00 from what you play. Yours have not been made yet: make them now,
        and they get better as you listen.
      </p>
      <button type="button" class="primary" onClick={build} disabled={busy.value}>
        {busy.value ? "Making your mixes…" : "Make my mixes now"}
      </button>
      <p role="status" class="muted">
        {outcome.value}
      </p>
      {failure.value !== "" && <p role="alert">{failure.value}</p>}
      {outcome.value !== "" && locked.length > 0 && (
        <ul class="locked-reasons" aria-label="Locked mixes">
          {locked.map((row) => (
            <li key={row.id}>
              <strong>{row.name}</strong>: {row.locked_reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

/** While the playlist list has never loaded: loading, or the failure with a Retry (never "Loading…" forever). */
export function PlaylistsStatus() {
  if (playlistsError.value !== undefined && !playlistsLoaded.value)
    return (
      <div class="load-error" role="alert">
        <p>Could not load your mixes: {playlistsError.value}</p>
        <button type="button" onClick={() => void loadPlaylists().catch(() => undefined)}>
          Retry
        </button>
      </div>
    )
  return playlistsLoaded.value ? null : <p class="muted">Loading…</p>
}

/**
 * True once the list is loaded and no rebuild ever filled a system playlist: the user's mixes were never made.
 * (Discover's row can exist before that, empty: the deck is drawn live and its row made on first use.)
 */
export const mixesNeverMade = () =>
  playlistsLoaded.value &&
  !playlists.value.some((row) => row.system_variant !== null && (row.track_count > 0 || row.locked))
