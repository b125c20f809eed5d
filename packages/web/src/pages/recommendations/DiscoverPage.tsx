import { useSignal } from "@preact/signals"
import { DateTime } from "effect"
import { useEffect } from "preact/hooks"
import { Cover } from "../../components/Cover.js"
import { MakeMixes, mixesNeverMade } from "../../components/MakeMixes.js"
import { TrackList } from "../../components/TrackList.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api, errorMessage } from "../../state/api.js"
import { onServerEvent } from "../../state/events.js"
import { playQueue } from "../../state/player.js"
import { playlists } from "../../state/playlists.js"
import { LockIcon } from "./components/SystemMix.js"

const BUCKET_LABEL: Record<string, string> = {
  taste_unheard: "Taste-matched",
  dormant: "Dormant",
  cross_user: "Others play",
  random: "Wildcard",
}

/**
 * Discover: the track deck (played with source `discover`), refresh and the rotation shuffle of the singleton,
 * and artist suggestions, each of which can be snoozed (it disappears for that user) and brought back.
 */
export default function DiscoverPage() {
  const version = useSignal(0)
  const message = useSignal("")
  const busy = useSignal(false)
  useEffect(() => onServerEvent("playlist.system_rebuilt", () => version.value++), [])
  const deck = useLoad((signal) => api((client) => client.discover.deck(), signal), [version.value])
  const suggestions = useLoad((signal) => api((client) => client.discover.suggestions(), signal), [version.value])
  const snoozes = useLoad((signal) => api((client) => client.discover.snoozes(), signal), [version.value])
  const row = playlists.value.find((candidate) => candidate.system_variant === "discover")
  const tracks = deck.data?.tracks.map((entry) => entry.track) ?? []

  const act = async (what: () => Promise<unknown>, done: string) => {
    busy.value = true
    message.value = ""
    try {
      await what()
      message.value = done
      version.value++
    } catch (failure) {
      message.value = errorMessage(failure)
    } finally {
      busy.value = false
    }
  }
  const shuffle = () =>
    act(async () => {
      const rotation = await api((client) => client.systemPlaylists.shuffle({ path: { kind: "discover" } }))
      playQueue(
        rotation.tracks.map((entry) => entry.track),
        { source: "discover" },
      )
    }, "")

  return (
    <div>
      <section aria-labelledby="discover-deck">
        <h1 id="discover-deck">Discover</h1>
        <p class="muted">
          Tracks you have not heard much, picked four ways: taste-matched, dormant, others play, wildcards.
        </p>
        <div class="actions">
          {!row?.locked && (
            <>
              <button
                type="button"
                class="primary"
                disabled={tracks.length === 0}
                onClick={() => playQueue(tracks, { source: "discover" })}
              >
                Play Discover
              </button>
              <button type="button" onClick={shuffle} disabled={busy.value}>
                Shuffle (unheard first)
              </button>
            </>
          )}
          <button
            type="button"
            disabled={busy.value}
            onClick={() =>
              act(() => api((client) => client.systemPlaylists.refresh({ path: { kind: "discover" } })), "Refreshed.")
            }
          >
            Refresh Discover
          </button>
          <span role="status" class="muted">
            {message.value}
          </span>
        </div>
        {row?.locked && (
          <div class="mix-locked" role="note" aria-label="Discover is locked">
            <LockIcon />
            <p>{row.locked_reason}</p>
          </div>
        )}
        <Status loaded={deck} />
        {deck.data !== undefined && deck.data.tracks.length > 0 && (
          <>
            <ul class="chips" aria-label="Deck buckets">
              {Object.entries(BUCKET_LABEL).map(([bucket, label]) => {
                const count = deck.data!.tracks.filter((entry) => entry.pick_kind === bucket).length
                return count === 0 ? null : (
                  <li key={bucket}>
                    <span class="chip">
                      {label}: {count}
                    </span>
                  </li>
                )
              })}
            </ul>
            <TrackList tracks={tracks} source="discover" label="Discover deck" showAlbum />
          </>
        )}
        {deck.data !== undefined &&
          deck.data.tracks.length === 0 &&
          !row?.locked &&
          (mixesNeverMade() ? (
            <MakeMixes holds="Discover will hold tracks you have not heard much: taste-matched, dormant, what others play, and wildcards." />
          ) : (
            <p class="muted">The deck is empty: it fills after the nightly rebuild once you have listened a while.</p>
          ))}
      </section>

      <section aria-labelledby="discover-artists" class="row">
        <h2 id="discover-artists">Artists to discover</h2>
        <Status loaded={suggestions} />
        {suggestions.data !== undefined && suggestions.data.length === 0 && (
          <p class="muted">No suggestions right now.</p>
        )}
        <ul class="suggestions" aria-label="Suggested artists">
          {suggestions.data?.map((suggestion) => (
            <li key={suggestion.mbid} class="suggestion" data-mbid={suggestion.mbid}>
              <Cover src={suggestion.image_url} alt="" size={64} kind="artist" />
              <div>
                {suggestion.artist_id !== undefined ? (
                  <a class="card-title" href={`/artists/${suggestion.artist_id}`}>
                    {suggestion.name}
                  </a>
                ) : (
                  <span class="card-title">{suggestion.name}</span>
                )}
                <span class="muted">
                  {suggestion.in_library ? "In your library" : "Not in your library"}
                  {suggestion.tags.length > 0 ? ` · ${suggestion.tags.slice(0, 4).join(", ")}` : ""}
                </span>
              </div>
              <button
                type="button"
                disabled={busy.value}
                aria-label={`Snooze ${suggestion.name}`}
                onClick={() =>
                  act(
                    () =>
                      api((client) =>
                        client.discover.snooze({
                          path: { mbid: suggestion.mbid as never },
                          payload: { name: suggestion.name },
                        }),
                      ),
                    `${suggestion.name} snoozed.`,
                  )
                }
              >
                Snooze
              </button>
            </li>
          ))}
        </ul>
      </section>

      {snoozes.data !== undefined && snoozes.data.length > 0 && (
        <section aria-labelledby="discover-snoozed" class="row">
          <h2 id="discover-snoozed">Snoozed</h2>
          <ul class="list" aria-label="Snoozed artists">
            {snoozes.data.map((snooze) => (
              <li key={snooze.candidate_mbid}>
                <span>{snooze.candidate_name}</span>
                <span class="muted">until {DateTime.formatIsoDateUtc(snooze.snoozed_until)}</span>
                <button
                  type="button"
                  disabled={busy.value}
                  aria-label={`Bring back ${snooze.candidate_name}`}
                  onClick={() =>
                    act(
                      () =>
                        api((client) => client.discover.unsnooze({ path: { mbid: snooze.candidate_mbid as never } })),
                      `${snooze.candidate_name} is back.`,
                    )
                  }
                >
                  Bring back
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  )
}
