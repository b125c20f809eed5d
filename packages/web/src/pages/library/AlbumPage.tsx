import type { AlbumDetail, Track } from "@tonearm/core"
import { AlbumArtists } from "../../components/ArtistLinks.js"
import { Cover } from "../../components/Cover.js"
import { DownloadButton } from "../../components/DownloadButton.js"
import { formatMs, plural, yearHref } from "../../components/format.js"
import { GenreChips } from "../../components/GenreChips.js"
import { asId } from "../../components/ids.js"
import { LikeButton } from "../../components/LikeButton.js"
import { QueueMenu } from "../../components/QueueMenu.js"
import { RadioButton } from "../../components/RadioButton.js"
import { TrackList } from "../../components/TrackList.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"
import { playQueue } from "../../state/player.js"
import type { PageProps } from "../../state/router.js"

/** One disc's heading: "Disc 2", or "Disc 2 — Evening" with its subtitle. */
export const discHeading = (disc: { readonly number: number; readonly subtitle: string | null }) =>
  disc.subtitle === null || disc.subtitle === "" ? `Disc ${disc.number}` : `Disc ${disc.number} — ${disc.subtitle}`

interface DiscGroup {
  readonly number: number
  readonly subtitle: string | null
  /** Where the disc's first track is in the album's order (the queue a play starts). */
  readonly start: number
  readonly tracks: ReadonlyArray<Track>
}

/**
 * The album's tracks by disc, in the album's order (the server orders by disc, then track). Headers are shown
 * when there is more than one disc or a disc has a subtitle; otherwise one list with no header.
 */
const discGroups = (album: AlbumDetail): ReadonlyArray<DiscGroup> | undefined => {
  const subtitles = new Map(album.discs.map((disc) => [disc.number, disc.subtitle]))
  const groups: Array<{ number: number; subtitle: string | null; start: number; tracks: Array<Track> }> = []
  album.tracks.forEach((track, at) => {
    const number = track.disc_number ?? 1
    const last = groups[groups.length - 1]
    if (last !== undefined && last.number === number) last.tracks.push(track)
    else groups.push({ number, subtitle: subtitles.get(number) ?? null, start: at, tracks: [track] })
  })
  const titled = groups.some((group) => group.subtitle !== null && group.subtitle !== "")
  return groups.length > 1 || titled ? groups : undefined
}

export default function AlbumPage({ params }: PageProps) {
  const album = useLoad(
    (signal) => api((client) => client.library.album({ path: { id: asId(params.id!) } }), signal),
    [params.id],
  )
  const data = album.data
  if (data === undefined) return <Status loaded={album} />
  const source = `album:${data.id}`
  const discs = discGroups(data)
  return (
    <article>
      <header class="header">
        <Cover src={data.cover_url} alt={`Cover of ${data.title}`} size={200} />
        <div>
          <p class="muted">Album</p>
          <div class="title-line">
            <h1>{data.title}</h1>
            {data.version !== null && (
              <span class="edition" data-testid="album-version">
                {data.version}
              </span>
            )}
          </div>
          <p>
            <span class="album-artists">
              <AlbumArtists album={data} />
            </span>
            {data.year > 0 && (
              <>
                {" · "}
                <a href={yearHref(data.year)}>{data.year}</a>
              </>
            )}
            <span class="muted">
              {" · "}
              {discs !== undefined && discs.length > 1 && <>{plural(discs.length, "disc")} · </>}
              {plural(data.track_count, "track")} · {formatMs(data.duration_ms)}
            </span>
          </p>
          <GenreChips genres={data.genres} />
          <div class="actions">
            <button type="button" class="primary" onClick={() => playQueue(data.tracks, { source })}>
              Play
            </button>
            <LikeButton kind="album" id={data.id} label={data.title} />
            <QueueMenu label={data.title} tracks={() => data.tracks} />
            <RadioButton seed={{ kind: "album", id: data.id }} label={data.title} />
            <DownloadButton
              id={source}
              title={data.title}
              href={`/albums/${data.id}`}
              tracks={data.tracks}
              extra={[`/api/albums/${data.id}`, ...(data.cover_url === null ? [] : [data.cover_url])]}
            />
          </div>
        </div>
      </header>
      {discs === undefined ? (
        <TrackList tracks={data.tracks} source={source} label={`Tracks of ${data.title}`} numbered />
      ) : (
        discs.map((disc) => (
          <section key={disc.number} class="disc" aria-labelledby={`disc-${disc.number}`}>
            <h2 id={`disc-${disc.number}`} class="disc-heading">
              {discHeading(disc)}
            </h2>
            <TrackList
              tracks={disc.tracks}
              queue={data.tracks}
              queueStart={disc.start}
              source={source}
              label={`${discHeading(disc)}: tracks of ${data.title}`}
              numbered
            />
          </section>
        ))
      )}
    </article>
  )
}
