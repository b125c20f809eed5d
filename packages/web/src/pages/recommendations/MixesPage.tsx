import { useEffect } from "preact/hooks"
import { Cover } from "../../components/Cover.js"
import { formatMs, plural } from "../../components/format.js"
import { MakeMixes, mixesNeverMade, PlaylistsStatus } from "../../components/MakeMixes.js"
import { loadPlaylists, playlists } from "../../state/playlists.js"
import { mixHref, systemMixes } from "./components/mixes.js"
import { LockedMix } from "./components/SystemMix.js"

/**
 * Every system playlist the nightly rebuild made for the user: daily mixes, For You, Discover, New for you,
 * First listens, Rediscover, On repeat, Songs like … A withheld mix shows its unlock placeholder. The list
 * follows `playlist.system_rebuilt` (the playlists store refetches on every playlist event).
 */
export default function MixesPage() {
  // The store refetches on every playlist event (system_rebuilt included); load once in case it is stale.
  useEffect(() => {
    void loadPlaylists().catch(() => undefined)
  }, [])
  const mixes = systemMixes(playlists.value)
  return (
    <section>
      <h1>Mixes</h1>
      <p class="muted">Made for you every night from what you play. Refresh For You and Discover any time.</p>
      {mixesNeverMade() && (
        <MakeMixes holds="Mixes will hold your daily mixes, For You, Discover, New for you, First listens, Rediscover and On repeat." />
      )}
      {mixes.length === 0 ? (
        <PlaylistsStatus />
      ) : (
        <ul class="mix-grid" aria-label="Your mixes">
          {mixes.map((mix) => (
            <li key={mix.id} class={`mix-card${mix.locked ? " locked" : ""}`} data-variant={mix.system_variant}>
              <a href={mixHref(mix.system_variant!)}>
                <Cover src={mix.locked ? null : `/api/playlists/${mix.id}/cover`} alt="" size={140} kind="playlist" />
                <span class="card-title">{mix.name}</span>
              </a>
              {mix.locked ? (
                <LockedMix row={mix} />
              ) : (
                <span class="muted">
                  {plural(mix.track_count, "track")} · {formatMs(mix.duration_ms)}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
