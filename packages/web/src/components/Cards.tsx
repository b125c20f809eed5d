import type { AlbumRef, Artist } from "@tonearm/core"
import { AlbumArtists } from "./ArtistLinks.js"
import { Cover } from "./Cover.js"
import { plural } from "./format.js"

export function AlbumCard(props: { readonly album: AlbumRef }) {
  const { album } = props
  return (
    <li class="card">
      <a href={`/albums/${album.id}`}>
        <Cover src={album.cover_url} alt="" />
        <span class="card-title">{album.title}</span>
        {album.version !== null && (
          <>
            {" "}
            <span class="edition">{album.version}</span>
          </>
        )}
      </a>
      <span class="muted">
        <AlbumArtists album={album} />
        {album.year > 0 ? ` · ${album.year}` : ""}
      </span>
    </li>
  )
}

export function ArtistCard(props: { readonly artist: Artist }) {
  const { artist } = props
  return (
    <li class="card artist">
      <a href={`/artists/${artist.id}`}>
        <Cover src={artist.cover_url} alt="" kind="artist" />
        <span class="card-title">{artist.name}</span>
      </a>
      <span class="muted">{plural(artist.album_count, "album")}</span>
    </li>
  )
}

/** A titled horizontal row of cards (Home sections and the like). */
export function CardRow(props: {
  readonly title: string
  readonly albums?: ReadonlyArray<AlbumRef>
  readonly artists?: ReadonlyArray<Artist>
  readonly empty?: string
}) {
  const id = `row-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`
  const count = (props.albums?.length ?? 0) + (props.artists?.length ?? 0)
  return (
    <section class="row" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {count === 0 ? (
        <p class="muted">{props.empty ?? "Nothing here yet."}</p>
      ) : (
        <ul class="cards">
          {props.albums?.map((album) => (
            <AlbumCard key={album.id} album={album} />
          ))}
          {props.artists?.map((artist) => (
            <ArtistCard key={artist.id} artist={artist} />
          ))}
        </ul>
      )}
    </section>
  )
}
