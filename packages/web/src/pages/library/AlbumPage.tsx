import { api } from "../../app/api.js"
import { playQueue } from "../../app/player.js"
import type { PageProps } from "../../app/routes.js"
import { Cover } from "../../components/Cover.js"
import { formatMs, yearHref } from "../../components/format.js"
import { GenreChips } from "../../components/GenreChips.js"
import { asId } from "../../components/ids.js"
import { LikeButton } from "../../components/LikeButton.js"
import { TrackList } from "../../components/TrackList.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { RadioButton } from "../recommendations/components/RadioButton.js"

export default function AlbumPage({ params }: PageProps) {
  const album = useLoad(
    (signal) => api((client) => client.library.album({ path: { id: asId(params.id!) } }), signal),
    [params.id],
  )
  const data = album.data
  if (data === undefined) return <Status loaded={album} />
  const source = `album:${data.id}`
  return (
    <article>
      <header class="header">
        <Cover src={data.cover_url} alt={`Cover of ${data.title}`} size={200} />
        <div>
          <p class="muted">Album</p>
          <h1>{data.title}</h1>
          <p>
            <a href={`/artists/${data.artist_id}`}>{data.artist_name}</a>
            {data.year > 0 && (
              <>
                {" · "}
                <a href={yearHref(data.year)}>{data.year}</a>
              </>
            )}
            <span class="muted">
              {" · "}
              {data.track_count} tracks · {formatMs(data.duration_ms)}
            </span>
          </p>
          <GenreChips genres={data.genres} />
          <div class="actions">
            <button type="button" class="primary" onClick={() => playQueue(data.tracks, { source })}>
              Play
            </button>
            <LikeButton kind="album" id={data.id} label={data.title} />
            <RadioButton seed={{ kind: "album", id: data.id }} label={data.title} />
          </div>
        </div>
      </header>
      <TrackList tracks={data.tracks} source={source} label={`Tracks of ${data.title}`} numbered />
    </article>
  )
}
