import { useSignalEffect } from "@preact/signals"
import { useRef } from "preact/hooks"
import { CardRow } from "../../components/Cards.js"
import { TrackList } from "../../components/TrackList.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"
import { liked } from "../../state/likes.js"

/** Everything the user likes; refetched when a like changes anywhere (this tab or another, via the event stream). */
export default function LikesPage() {
  const likes = useLoad((signal) => api((client) => client.likes.list(), signal), [])
  const first = useRef(true)
  // Subscribes to the like sets only: `reload` peeks its counter, so this runs once per like change, not per frame.
  useSignalEffect(() => {
    void liked.track.value
    void liked.album.value
    void liked.artist.value
    if (first.current) first.current = false
    else likes.reload()
  })
  const data = likes.data
  return (
    <section>
      <h1>Likes</h1>
      <Status loaded={likes} />
      {data !== undefined && (
        <>
          <section aria-labelledby="liked-tracks">
            <h2 id="liked-tracks">Tracks</h2>
            {data.tracks.length === 0 ? (
              <p class="muted">No liked tracks yet: press ♡ next to a track and it shows here.</p>
            ) : (
              <TrackList tracks={data.tracks} label="Liked tracks" showAlbum />
            )}
          </section>
          <CardRow title="Albums" albums={data.albums} empty="No liked albums yet: press ♡ on an album page." />
          <CardRow title="Artists" artists={data.artists} empty="No liked artists yet: press ♡ on an artist page." />
        </>
      )}
    </section>
  )
}
