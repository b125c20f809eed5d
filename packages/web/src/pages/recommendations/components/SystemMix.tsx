import { useSignal } from "@preact/signals"
import type { PlaylistDetail, PlaylistRow } from "@tonearm/core"
import { DateTime } from "effect"
import { useEffect } from "preact/hooks"
import { formatMs, plural } from "../../../components/format.js"
import { MakeMixes, mixesNeverMade, PlaylistsStatus } from "../../../components/MakeMixes.js"
import { PickReasonButton } from "../../../components/PickReason.js"
import { QueueMenu } from "../../../components/QueueMenu.js"
import { TrackList } from "../../../components/TrackList.js"
import { Status, useLoad } from "../../../components/useLoad.js"
import { api, errorMessage } from "../../../state/api.js"
import { onServerEvent } from "../../../state/events.js"
import { playQueue } from "../../../state/player.js"
import { playlists, playlistsLoaded } from "../../../state/playlists.js"

/** What an empty mix page will hold, in the listener's words. */
const HOLDS: Record<string, string> = {
  for_you: "For You will hold tracks picked for your taste: favourites you play most, and some you have not heard.",
  discover: "Discover will hold tracks you have not heard much, picked four ways.",
}

/** A padlock, drawn (no emoji font is needed). */
export function LockIcon() {
  return (
    <svg class="mix-lock" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
      <path
        fill="currentColor"
        d="M12 2a5 5 0 0 0-5 5v3H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-8a2 2 0 0 0-2-2h-1V7a5 5 0 0 0-5-5zm-3 8V7a3 3 0 0 1 6 0v3H9z"
      />
    </svg>
  )
}

/** The unlock placeholder of a withheld mix: the server's own reason, and no tracks. */
export function LockedMix(props: { readonly row: PlaylistRow }) {
  return (
    <div class="mix-locked" role="note" aria-label={`${props.row.name} is locked`}>
      <LockIcon />
      <p>{props.row.locked_reason ?? "This mix unlocks once you have listened a little more."}</p>
    </div>
  )
}

/**
 * One system playlist, found by its `system_variant`: play it with that variant as the play source (so the
 * server stamps the pick kind and advances the rotation), and for the singletons (`refreshable`) refresh it
 * and play the rotation shuffle. Reloads on `playlist.system_rebuilt`, so a rebuild shows without a reload.
 */
export function SystemMix(props: { readonly kind: string; readonly title?: string; readonly headingLevel?: 1 | 2 }) {
  const { kind } = props
  const row = playlists.value.find((candidate) => candidate.system_variant === kind)
  const version = useSignal(0)
  const busy = useSignal("")
  const message = useSignal("")
  useEffect(() => onServerEvent("playlist.system_rebuilt", () => version.value++), [])
  const detail = useLoad(
    (signal): Promise<PlaylistDetail | null> =>
      row === undefined
        ? Promise.resolve(null)
        : api((client) => client.playlists.get({ path: { id: row.id } }), signal),
    [row?.id, row?.updated_at, version.value],
  )
  const Heading = props.headingLevel === 2 ? "h2" : "h1"
  const title = props.title ?? row?.name ?? kind
  const data = detail.data
  const tracks = data?.tracks.map((entry) => entry.track) ?? []

  const refresh = async () => {
    busy.value = "refresh"
    message.value = ""
    try {
      await api((client) => client.systemPlaylists.refresh({ path: { kind } }))
      message.value = "Refreshed."
      version.value++
    } catch (failure) {
      message.value = `Refresh failed: ${errorMessage(failure)}`
    } finally {
      busy.value = ""
    }
  }
  const shuffle = async () => {
    busy.value = "shuffle"
    message.value = ""
    try {
      const rotation = await api((client) => client.systemPlaylists.shuffle({ path: { kind } }))
      if (rotation.tracks.length === 0) message.value = "Nothing to shuffle yet."
      else
        playQueue(
          rotation.tracks.map((entry) => entry.track),
          { source: kind },
        )
    } catch (failure) {
      message.value = `Shuffle failed: ${errorMessage(failure)}`
    } finally {
      busy.value = ""
    }
  }

  return (
    <section class="system-mix" aria-labelledby={`mix-${kind}`} data-variant={kind}>
      <header class="mix-header">
        <Heading id={`mix-${kind}`}>{title}</Heading>
        {data !== undefined && data !== null && !data.locked && (
          <p class="muted">
            {plural(data.track_count, "track")} · {formatMs(data.duration_ms)} · made for you
          </p>
        )}
        {data?.description && (
          // The starter-mix label before the cold-start gate (issue 28): what the mix is made of for now.
          <p class="mix-description">{data.description}</p>
        )}
        {row !== undefined && (
          <p class="muted mix-made" data-updated-at={DateTime.formatIso(row.updated_at)}>
            Made{" "}
            {DateTime.toDateUtc(row.updated_at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" })}
          </p>
        )}
        <div class="actions">
          {row !== undefined && !row.locked && (
            <button
              type="button"
              class="primary"
              disabled={tracks.length === 0}
              onClick={() => playQueue(tracks, { source: kind })}
            >
              Play {title}
            </button>
          )}
          {!row?.locked && tracks.length > 0 && <QueueMenu label={title} tracks={() => tracks} />}
          {row?.refreshable && (
            <>
              <button type="button" onClick={shuffle} disabled={busy.value !== ""}>
                Shuffle (unheard first)
              </button>
              <button type="button" onClick={refresh} disabled={busy.value !== ""}>
                {busy.value === "refresh" ? "Refreshing…" : `Refresh ${title}`}
              </button>
            </>
          )}
          <span role="status" class="muted">
            {message.value}
          </span>
        </div>
      </header>
      {row === undefined ? (
        playlistsLoaded.value ? (
          <MakeMixes holds={HOLDS[kind] ?? `${title}: tracks picked for you from what you play.`} />
        ) : (
          <PlaylistsStatus />
        )
      ) : data === undefined || data === null ? (
        <Status loaded={detail} />
      ) : data.locked ? (
        <LockedMix row={row} />
      ) : tracks.length === 0 ? (
        mixesNeverMade() ? (
          <MakeMixes holds={HOLDS[kind] ?? `${title}: tracks picked for you from what you play.`} />
        ) : (
          <p class="muted">No tracks in this mix yet.</p>
        )
      ) : (
        <TrackList
          tracks={tracks}
          source={kind}
          label={`Tracks of ${title}`}
          showAlbum
          rowExtra={(at) => {
            const entry = data.tracks[at]
            return entry?.reason == null ? null : (
              <PickReasonButton reason={entry.reason} title={entry.track.title} id={entry.entry_id} />
            )
          }}
        />
      )}
    </section>
  )
}
