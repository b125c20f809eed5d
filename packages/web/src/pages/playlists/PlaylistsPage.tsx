import { useSignal } from "@preact/signals"
import { Cover } from "../../components/Cover.js"
import { formatMs, plural } from "../../components/format.js"
import { api, errorMessage } from "../../state/api.js"
import { loadPlaylists, playlists } from "../../state/playlists.js"
import { navigate } from "../../state/router.js"

/** The user's playlists (their own and the system mixes); make a new one. Kept current by the event stream. */
export default function PlaylistsPage() {
  const error = useSignal("")
  const create = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const name = String(new FormData(form).get("name") ?? "").trim()
    if (name === "") return
    try {
      const created = await api((client) => client.playlists.create({ payload: { name } }))
      form.reset()
      await loadPlaylists()
      navigate(`/playlists/${created.id}`)
    } catch (failure) {
      error.value = errorMessage(failure)
    }
  }
  return (
    <section>
      <h1>Playlists</h1>
      <form class="inline-form" onSubmit={create}>
        <label>
          New playlist name
          <input name="name" required maxLength={200} />
        </label>
        <button type="submit" class="primary">
          Create playlist
        </button>
        <p role="alert" class="error">
          {error.value}
        </p>
      </form>
      <p>
        <a href="/smart-playlists/new">New smart playlist</a>
        <span class="muted"> · a playlist filled from rules (genre, year, plays, likes…)</span>
      </p>
      <ul class="list" aria-label="Your playlists">
        {playlists.value.map((playlist) => (
          <li key={playlist.id}>
            <Cover src={`/api/playlists/${playlist.id}/cover`} alt="" size={48} kind="playlist" />
            <a href={`/playlists/${playlist.id}`}>{playlist.name}</a>
            <span class="muted">
              {playlist.locked
                ? "Locked"
                : `${plural(playlist.track_count, "track")} · ${formatMs(playlist.duration_ms)}`}
              {playlist.system_variant !== null ? " · made for you" : ""}
            </span>
            {playlist.smart && <a href={`/smart-playlists/${playlist.id}`}>Edit rules</a>}
          </li>
        ))}
      </ul>
      {playlists.value.length === 0 && <p class="muted">No playlists yet.</p>}
    </section>
  )
}
