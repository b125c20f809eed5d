import { useSignal } from "@preact/signals"
import type { AlbumArtistRole, AlbumRef, Track } from "@tonearm/core"
import { AlbumCard, CardRow } from "../../components/Cards.js"
import { Cover } from "../../components/Cover.js"
import { plural } from "../../components/format.js"
import { GenreChips } from "../../components/GenreChips.js"
import { asId } from "../../components/ids.js"
import { LikeButton } from "../../components/LikeButton.js"
import { QueueMenu } from "../../components/QueueMenu.js"
import { RadioButton } from "../../components/RadioButton.js"
import { TrackList } from "../../components/TrackList.js"
import { type Loaded, Status, useLoad } from "../../components/useLoad.js"
import { api, errorMessage } from "../../state/api.js"
import { playQueue } from "../../state/player.js"
import type { PageProps } from "../../state/router.js"

/** How many of the caller's most-played tracks of the artist the page lists. */
const TOP_TRACKS_SHOWN = 10
/** Albums per request when paging an artist's albums to the end (the list's largest page). */
const ALBUMS_PAGE = 500

/** Every album of the artist in one role, paged to the end through GET /api/library/albums?artist_id&role. */
const allAlbums = async (
  artistId: string,
  role: AlbumArtistRole,
  onPage?: (sofar: ReadonlyArray<AlbumRef>, total: number) => void,
) => {
  const albums: Array<AlbumRef> = []
  for (;;) {
    const page = await api((client) =>
      client.library.albums({
        urlParams: { artist_id: asId(artistId), role, offset: albums.length, limit: ALBUMS_PAGE },
      }),
    )
    albums.push(...page.items)
    onPage?.(albums, page.total)
    if (page.items.length === 0 || albums.length >= page.total) return albums
  }
}

/**
 * The artist's albums (or the albums they appear on): the first ones the detail embeds in a row of cards; when
 * there are more, "Show all N albums" pages the rest in and lays them all out as a grid.
 */
function ArtistAlbums(props: {
  readonly title: string
  readonly artistId: string
  readonly albumRole: AlbumArtistRole
  readonly embedded: ReadonlyArray<AlbumRef>
  readonly total: number
  readonly empty?: string
}) {
  const all = useSignal<ReadonlyArray<AlbumRef> | undefined>(undefined)
  const loading = useSignal(false)
  const error = useSignal<string | undefined>(undefined)
  const id = `row-${props.albumRole}`
  const more = props.total > props.embedded.length
  const showAll = async () => {
    loading.value = true
    error.value = undefined
    try {
      await allAlbums(props.artistId, props.albumRole, (sofar) => {
        all.value = [...sofar]
      })
    } catch (failure) {
      error.value = errorMessage(failure)
    } finally {
      loading.value = false
    }
  }
  const shown = all.value ?? props.embedded
  return (
    <section class="row" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {shown.length === 0 ? (
        <p class="muted">{props.empty ?? "Nothing here yet."}</p>
      ) : (
        <ul class={all.value === undefined ? "cards" : "cards grid"}>
          {shown.map((album) => (
            <AlbumCard key={album.id} album={album} />
          ))}
        </ul>
      )}
      {more && (
        <p class="actions row-more">
          {(all.value === undefined || loading.value || error.value !== undefined) && (
            <button type="button" onClick={() => void showAll()} disabled={loading.value}>
              {loading.value ? "Loading albums…" : `Show all ${plural(props.total, "album")}`}
            </button>
          )}
          <span class="muted" aria-live="polite">
            {error.value !== undefined
              ? `Could not load the albums: ${error.value}`
              : all.value !== undefined && !loading.value
                ? `All ${plural(shown.length, "album")}`
                : `Showing ${shown.length} of ${plural(props.total, "album")}`}
          </span>
        </p>
      )}
    </section>
  )
}

/** The caller's most-played tracks of the artist, playable as one queue; a short line when there are none. */
function TopTracks(props: {
  readonly loaded: Loaded<ReadonlyArray<Track>>
  readonly artist: { readonly id: string; readonly name: string }
}) {
  const tracks = props.loaded.data
  return (
    <section class="row" aria-labelledby="row-top-tracks">
      <h2 id="row-top-tracks">Top tracks</h2>
      {props.loaded.error !== undefined ? (
        <p class="muted">Could not load your top tracks: {props.loaded.error}</p>
      ) : tracks === undefined ? (
        <p class="muted">Loading…</p>
      ) : tracks.length === 0 ? (
        <p class="muted">Nothing played yet: the tracks you play most by {props.artist.name} show up here.</p>
      ) : (
        <TrackList
          tracks={tracks}
          source={`artist:${props.artist.id}`}
          label={`Top tracks of ${props.artist.name}`}
          showAlbum
        />
      )}
    </section>
  )
}

export default function ArtistPage({ params }: PageProps) {
  const id = asId(params.id!)
  const artist = useLoad((signal) => api((client) => client.library.artist({ path: { id } }), signal), [params.id])
  // Each loads once per artist: useLoad's effect depends on the id only, never on the data it writes.
  const top = useLoad(
    (signal) =>
      api((client) => client.plays.topTracks({ path: { id } }), signal).then((answer) =>
        answer.tracks.slice(0, TOP_TRACKS_SHOWN),
      ),
    [params.id],
  )
  const similar = useLoad(
    (signal) => api((client) => client.radio.similarArtists({ path: { id } }), signal),
    [params.id],
  )
  const data = artist.data
  if (data === undefined) return <Status loaded={artist} />
  // The artist's albums in order (all of them, paged in when the detail embeds only the first), as one queue
  // reported as `artist:<id>`; "Play next" / "Add to queue" take the same tracks.
  const allTracks = async () => {
    const refs = data.albums_total > data.albums.length ? await allAlbums(data.id, "album_artist") : data.albums
    const albums = await Promise.all(
      refs.map((album) => api((client) => client.library.album({ path: { id: asId(album.id) } }))),
    )
    return albums.flatMap((album) => album.tracks)
  }
  const playAll = async () => playQueue(await allTracks(), { source: `artist:${data.id}` })
  return (
    <article>
      <header class="header">
        <Cover src={data.cover_url} alt={`Picture of ${data.name}`} size={200} kind="artist" />
        <div>
          <p class="muted">Artist</p>
          <h1>{data.name}</h1>
          <p class="muted">
            {plural(data.album_count, "album")} · {plural(data.track_count, "track")}
          </p>
          <GenreChips genres={data.genres} />
          <div class="actions">
            <button type="button" class="primary" onClick={() => void playAll()} disabled={data.albums.length === 0}>
              Play
            </button>
            <LikeButton kind="artist" id={data.id} label={data.name} />
            {data.albums.length > 0 && <QueueMenu label={data.name} tracks={allTracks} />}
            <RadioButton seed={{ kind: "artist", id: data.id }} label={data.name} />
          </div>
        </div>
      </header>
      <TopTracks loaded={top} artist={data} />
      <ArtistAlbums
        key={`albums-${data.id}`}
        title="Albums"
        artistId={data.id}
        albumRole="album_artist"
        embedded={data.albums}
        total={data.albums_total}
        empty="No albums of their own."
      />
      {data.appears_on_total > 0 && (
        <ArtistAlbums
          key={`appears-${data.id}`}
          title="Appears on"
          artistId={data.id}
          albumRole="appears_on"
          embedded={data.appears_on}
          total={data.appears_on_total}
        />
      )}
      {similar.data !== undefined && similar.data.length > 0 && (
        <CardRow title="Similar artists" artists={similar.data} />
      )}
    </article>
  )
}
