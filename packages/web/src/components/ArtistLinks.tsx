import { type Credit, creditPieces } from "./credits.js"

/**
 * An artist line with every credited artist its own link: `Alice feat. Bob` links Alice and Bob. With no
 * credits (an older server), the whole text links to `fallbackId`.
 */
export function ArtistLinks(props: {
  readonly text: string
  readonly credits: ReadonlyArray<Credit> | undefined
  readonly fallbackId: string
}) {
  const credits =
    props.credits !== undefined && props.credits.length > 0
      ? props.credits
      : [{ id: props.fallbackId, name: props.text }]
  return (
    <>
      {creditPieces(props.text, credits).map((piece, index) =>
        piece.credit === undefined ? (
          piece.text
        ) : (
          <a key={index} href={`/artists/${piece.credit.id}`} class="artist-link">
            {piece.text}
          </a>
        ),
      )}
    </>
  )
}

/** A track's credited artists (tag order, featured after "feat."). */
export function TrackArtists(props: {
  readonly track: {
    readonly artist_id: string
    readonly artist_name: string
    readonly artists?: ReadonlyArray<Credit>
  }
}) {
  return <ArtistLinks text={props.track.artist_name} credits={props.track.artists} fallbackId={props.track.artist_id} />
}

/** An album's album artists, each a link. */
export function AlbumArtists(props: {
  readonly album: {
    readonly artist_id: string
    readonly artist_name: string
    readonly artists?: ReadonlyArray<Credit>
  }
}) {
  return <ArtistLinks text={props.album.artist_name} credits={props.album.artists} fallbackId={props.album.artist_id} />
}
