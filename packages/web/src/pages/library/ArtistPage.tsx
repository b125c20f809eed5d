import { api } from "../../app/api.js"
import { playQueue } from "../../app/player.js"
import type { PageProps } from "../../app/routes.js"
import { CardRow } from "../../components/Cards.js"
import { Cover } from "../../components/Cover.js"
import { GenreChips } from "../../components/GenreChips.js"
import { asId } from "../../components/ids.js"
import { LikeButton } from "../../components/LikeButton.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { RadioButton } from "../recommendations/components/RadioButton.js"

export default function ArtistPage({ params }: PageProps) {
  const artist = useLoad(
    (signal) => api((client) => client.library.artist({ path: { id: asId(params.id!) } }), signal),
    [params.id],
  )
  const data = artist.data
  if (data === undefined) return <Status loaded={artist} />
  const playAll = async () => {
    // The artist's albums in order, as one queue reported as `artist:<id>`.
    const albums = await Promise.all(
      data.albums.map((album) => api((client) => client.library.album({ path: { id: asId(album.id) } }))),
    )
    playQueue(
      albums.flatMap((album) => album.tracks),
      { source: `artist:${data.id}` },
    )
  }
  return (
    <article>
      <header class="header">
        <Cover src={data.cover_url} alt={`Picture of ${data.name}`} size={200} />
        <div>
          <p class="muted">Artist</p>
          <h1>{data.name}</h1>
          <p class="muted">
            {data.album_count} albums · {data.track_count} tracks
          </p>
          <GenreChips genres={data.genres} />
          <div class="actions">
            <button type="button" class="primary" onClick={() => void playAll()} disabled={data.albums.length === 0}>
              Play
            </button>
            <LikeButton kind="artist" id={data.id} label={data.name} />
            <RadioButton seed={{ kind: "artist", id: data.id }} label={data.name} />
          </div>
        </div>
      </header>
      <CardRow title="Albums" albums={data.albums} empty="No albums of their own." />
      {data.appears_on.length > 0 && <CardRow title="Appears on" albums={data.appears_on} />}
    </article>
  )
}
