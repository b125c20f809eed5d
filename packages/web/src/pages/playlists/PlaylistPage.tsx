import { useSignal } from "@preact/signals"
import type { PlaylistEntry } from "@tonearm/core"
import { useEffect, useLayoutEffect, useRef } from "preact/hooks"
import { TrackArtists } from "../../components/ArtistLinks.js"
import { Cover } from "../../components/Cover.js"
import { DownloadButton } from "../../components/DownloadButton.js"
import { formatMs, plural } from "../../components/format.js"
import { Icon } from "../../components/Icon.js"
import { asId } from "../../components/ids.js"
import { LikeButton } from "../../components/LikeButton.js"
import { PickReasonButton } from "../../components/PickReason.js"
import { QueueMenu } from "../../components/QueueMenu.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api, errorMessage } from "../../state/api.js"
import { onServerEvent } from "../../state/events.js"
import { playQueue } from "../../state/player.js"
import { loadPlaylists } from "../../state/playlists.js"
import type { PageProps } from "../../state/router.js"
import { navigate } from "../../state/router.js"

/** Moves the entry at `from` to `to` (both positions in the list). */
const moved = <A,>(list: ReadonlyArray<A>, from: number, to: number): Array<A> => {
  const copy = [...list]
  const [item] = copy.splice(from, 1)
  copy.splice(to, 0, item!)
  return copy
}

/**
 * One playlist: play it (`playlist:<id>`), rename, delete, remove entries, and reorder by drag and drop or from
 * the keyboard (the ↑/↓ buttons on each row, or Alt+↑/↓ on a focused row). System mixes are read-only.
 */
export default function PlaylistPage({ params }: PageProps) {
  const id = params.id!
  // Local edits (reorder, remove) in flight and finished: an answer fetched while one was in flight, or before one
  // finished, may predate it and must not overwrite the newer order; each finished edit reloads afterwards.
  const edits = useRef({ pending: 0, done: 0 })
  const detail = useLoad(
    async (signal) => {
      const before = { ...edits.current }
      const value = await api((client) => client.playlists.get({ path: { id: asId(id) } }), signal)
      const now = edits.current
      return { value, stale: before.pending > 0 || now.pending > 0 || now.done !== before.done }
    },
    [id],
  )
  const edit = async (run: () => Promise<void>) => {
    edits.current.pending++
    try {
      await run()
    } finally {
      edits.current.pending--
      edits.current.done++
      detail.reload()
    }
  }
  const order = useSignal<ReadonlyArray<PlaylistEntry> | undefined>(undefined)
  const dragging = useSignal<number | undefined>(undefined)
  const over = useSignal<number | undefined>(undefined)
  const message = useSignal("")
  const renaming = useSignal(false)

  useEffect(
    () =>
      onServerEvent("playlist.", (event) => {
        if (event.data.playlist_id === id && event.kind !== "playlist.deleted") detail.reload()
      }),
    [id],
  )
  useEffect(() => {
    if (detail.data !== undefined && !detail.data.stale) order.value = detail.data.value.tracks
  }, [detail.data])
  // Keep the keyboard on a moved entry (re-inserting its row may drop focus): right after the render that moved
  // it (no frame to wait for), and only if focus is still where the move left it or was dropped.
  const refocus = useRef<{ readonly entry: string; readonly active: Element | null } | undefined>(undefined)
  useLayoutEffect(() => {
    const pending = refocus.current
    if (pending === undefined) return
    refocus.current = undefined
    if (document.activeElement !== pending.active && document.activeElement !== document.body) return
    document.querySelector<HTMLElement>(`[data-entry-id="${pending.entry}"] .drag-handle`)?.focus()
  })

  const data = detail.data?.value
  if (data === undefined) return <Status loaded={detail} />
  const editable = data.system_variant === null
  // A smart playlist's tracks come from its rules (issue 28): renamed and deleted here, its entries left alone.
  const entriesEditable = editable && !data.smart
  const entries = order.value ?? data.tracks
  const tracks = entries.map((entry) => entry.track)
  // A system mix reports its own kind (`for_you`, `daily_mix:2`…) so the server stamps pick kinds and rotation.
  const source = data.system_variant ?? `playlist:${id}`

  const saveOrder = async (next: ReadonlyArray<PlaylistEntry>, focusEntry?: string) => {
    if (focusEntry !== undefined) refocus.current = { entry: focusEntry, active: document.activeElement }
    order.value = next
    await edit(async () => {
      try {
        await api((client) =>
          client.playlists.reorder({
            path: { id: asId(id) },
            payload: { entry_ids: next.map((entry) => entry.entry_id) },
          }),
        )
        message.value = "Order saved."
      } catch (error) {
        message.value = `Could not reorder: ${errorMessage(error)}`
      }
    })
  }
  const move = (from: number, to: number) => {
    if (to < 0 || to >= entries.length || from === to) return
    const entry = entries[from]!
    void saveOrder(moved(entries, from, to), entry.entry_id)
    message.value = `Moved ${entry.track.title} to position ${to + 1}.`
  }
  const remove = async (entry: PlaylistEntry) => {
    order.value = entries.filter((other) => other.entry_id !== entry.entry_id)
    await edit(async () => {
      try {
        await api((client) =>
          client.playlists.removeEntries({ path: { id: asId(id) }, payload: { entry_ids: [entry.entry_id] } }),
        )
        message.value = `Removed ${entry.track.title}.`
      } catch (error) {
        message.value = `Could not remove: ${errorMessage(error)}`
      }
    })
  }
  const rename = async (event: Event) => {
    event.preventDefault()
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get("name") ?? "").trim()
    if (name === "") return
    try {
      await api((client) => client.playlists.update({ path: { id: asId(id) }, payload: { name } }))
      renaming.value = false
      detail.reload()
      void loadPlaylists()
    } catch (error) {
      message.value = `Could not rename: ${errorMessage(error)}`
    }
  }
  const destroy = async () => {
    if (!confirm(`Delete the playlist “${data.name}”?`)) return
    try {
      await api((client) => client.playlists.delete({ path: { id: asId(id) } }))
      await loadPlaylists()
      navigate("/playlists")
    } catch (error) {
      message.value = `Could not delete: ${errorMessage(error)}`
    }
  }

  return (
    <article>
      <header class="header">
        <Cover src={`/api/playlists/${id}/cover`} alt="" size={200} kind="playlist" />
        <div>
          <p class="muted">{data.smart ? "Smart playlist" : editable ? "Playlist" : "Made for you"}</p>
          {renaming.value ? (
            <form onSubmit={rename} class="inline-form">
              <label>
                Playlist name
                <input name="name" defaultValue={data.name} required maxLength={200} />
              </label>
              <button type="submit" class="primary">
                Save name
              </button>
              <button type="button" onClick={() => (renaming.value = false)}>
                Cancel
              </button>
            </form>
          ) : (
            <h1>{data.name}</h1>
          )}
          {data.description && <p>{data.description}</p>}
          <p class="muted">
            {plural(data.track_count, "track")} · {formatMs(data.duration_ms)}
          </p>
          <div class="actions">
            <button
              type="button"
              class="primary"
              disabled={tracks.length === 0}
              onClick={() => playQueue(tracks, { source })}
            >
              Play
            </button>
            {tracks.length > 0 && <QueueMenu label={data.name} tracks={() => tracks} />}
            <DownloadButton
              id={source}
              title={data.name}
              href={`/playlists/${id}`}
              tracks={tracks}
              extra={[`/api/playlists/${id}`, `/api/playlists/${id}/cover`]}
            />
            {data.smart && <a href={`/smart-playlists/${id}`}>Edit rules</a>}
            {editable && !renaming.value && (
              <button type="button" onClick={() => (renaming.value = true)}>
                Rename
              </button>
            )}
            {editable && (
              <button type="button" class="danger" onClick={() => void destroy()}>
                Delete playlist
              </button>
            )}
          </div>
        </div>
      </header>
      <p role="status" class="muted">
        {message.value}
      </p>
      {entries.length === 0 && !data.smart && (
        <p class="muted">Empty: add tracks from any track list (the ⋯ menu → Add to {data.name}).</p>
      )}
      {entries.length === 0 && data.smart && <p class="muted">No track matches its rules yet.</p>}
      <ol class="list playlist-entries" aria-label={`Tracks of ${data.name}`}>
        {entries.map((entry, at) => (
          <li
            key={entry.entry_id}
            data-entry-id={entry.entry_id}
            class={over.value === at && dragging.value !== at ? "drag-over" : ""}
            draggable={entriesEditable}
            onDragStart={(event) => {
              dragging.value = at
              event.dataTransfer?.setData("text/plain", entry.entry_id)
            }}
            onDragOver={(event) => {
              if (dragging.value === undefined) return
              event.preventDefault()
              over.value = at
            }}
            onDragEnd={() => {
              dragging.value = undefined
              over.value = undefined
            }}
            onDrop={(event) => {
              event.preventDefault()
              const from = dragging.value
              dragging.value = undefined
              over.value = undefined
              if (from !== undefined) move(from, at)
            }}
          >
            {entriesEditable && (
              <button
                type="button"
                class="icon drag-handle"
                aria-label={`Reorder ${entry.track.title}: Alt+↑ or Alt+↓ to move`}
                aria-describedby="reorder-help"
                onKeyDown={(event) => {
                  if (!event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return
                  event.preventDefault()
                  event.stopPropagation()
                  move(at, event.key === "ArrowUp" ? at - 1 : at + 1)
                }}
              >
                <Icon name="drag" />
              </button>
            )}
            <span class="muted num">{at + 1}</span>
            <button
              type="button"
              class="link-like"
              aria-label={`Play ${entry.track.title}`}
              onClick={() => playQueue(tracks, { startIndex: at, source })}
            >
              {entry.track.title}
            </button>
            <span class="muted">
              <TrackArtists track={entry.track} />
            </span>
            <span class="muted time">{formatMs(entry.track.duration_ms)}</span>
            <LikeButton kind="track" id={entry.track.id} label={entry.track.title} />
            {entry.reason !== null && (
              <PickReasonButton reason={entry.reason} title={entry.track.title} id={entry.entry_id} />
            )}
            {entriesEditable && (
              <>
                <button
                  type="button"
                  class="icon"
                  aria-label={`Move ${entry.track.title} up`}
                  disabled={at === 0}
                  onClick={() => move(at, at - 1)}
                >
                  <Icon name="up" />
                </button>
                <button
                  type="button"
                  class="icon"
                  aria-label={`Move ${entry.track.title} down`}
                  disabled={at === entries.length - 1}
                  onClick={() => move(at, at + 1)}
                >
                  <Icon name="down" />
                </button>
                <button
                  type="button"
                  class="icon"
                  aria-label={`Remove ${entry.track.title}`}
                  onClick={() => void remove(entry)}
                >
                  <Icon name="close" />
                </button>
              </>
            )}
          </li>
        ))}
      </ol>
      {entriesEditable && (
        <p id="reorder-help" class="muted">
          Drag rows to reorder, or use the ↑/↓ buttons, or focus a row's handle and press Alt+↑ / Alt+↓.
        </p>
      )}
    </article>
  )
}
