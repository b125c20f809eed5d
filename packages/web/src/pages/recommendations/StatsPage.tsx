import { useSignal } from "@preact/signals"
import type { ListeningPeriod, ListeningStats } from "@tonearm/core"
import { DateTime } from "effect"
import type { ComponentChildren } from "preact"
import { CountBar, Heatmap } from "../../components/charts.js"
import { genreHref, plural } from "../../components/format.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"
import { playQueue } from "../../state/player.js"
import { RecommendationDetails } from "./components/RecommendationDetails.js"
import "../../styles/stats.css"

const PERIODS: ReadonlyArray<{ readonly value: ListeningPeriod; readonly label: string; readonly span: string }> = [
  { value: "week", label: "Week", span: "the last 7 days" },
  { value: "month", label: "Month", span: "the last 30 days" },
  { value: "year", label: "Year", span: "the last 12 months" },
  { value: "all", label: "All time", span: "all time" },
]

/** Hours and minutes, the way a listener reads time listened ("12 h 5 min", "45 min"). */
const listened = (ms: number) => {
  if (ms > 0 && ms < 60_000) return `${Math.max(1, Math.round(ms / 1000))} s`
  const minutes = Math.round(ms / 60_000)
  const hours = Math.floor(minutes / 60)
  return hours === 0 ? `${minutes} min` : `${hours} h ${minutes % 60} min`
}

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone

interface Row {
  readonly key: string
  readonly name: string
  readonly href?: string
  readonly detail?: string
  readonly plays: number
}

/** One top list: rank, name (a link), the count written out and drawn as a bar against the first. */
function TopList(props: {
  readonly title: string
  readonly rows: ReadonlyArray<Row>
  readonly empty: string
  readonly action?: ComponentChildren
}) {
  const id = `top-${props.title.toLowerCase().replace(/\W+/g, "-")}`
  const max = props.rows[0]?.plays ?? 0
  return (
    <section class="stats-card" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {props.action}
      {props.rows.length === 0 ? (
        <p class="muted">{props.empty}</p>
      ) : (
        <ol class="top-list" aria-label={props.title}>
          {props.rows.map((row) => (
            <li key={row.key}>
              <span class="top-name">
                {row.href === undefined ? row.name : <a href={row.href}>{row.name}</a>}
                {row.detail !== undefined && <span class="muted"> · {row.detail}</span>}
              </span>
              <span class="top-count">{plural(row.plays, "play")}</span>
              <CountBar value={row.plays} max={max} />
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}

function Summary(props: { readonly stats: ListeningStats }) {
  const { stats } = props
  const tiles = [
    { label: "Time listened", value: listened(stats.listened_ms) },
    { label: "Plays", value: String(stats.plays) },
    { label: "New artists", value: String(stats.discoveries_count) },
    { label: "Skipped", value: String(stats.skips) },
  ]
  return (
    <dl class="stats-tiles">
      {tiles.map((tile) => (
        <div key={tile.label}>
          <dt>{tile.label}</dt>
          <dd>{tile.value}</dd>
        </div>
      ))}
    </dl>
  )
}

/**
 * Your stats (GET /api/me/listening-stats): what you listened to most over a week, a month, a year or all time,
 * how long, when (the listening clock, in this browser's time zone) and which artists were new to you. The skip
 * rates by source are behind "Recommendation details".
 */
export default function StatsPage() {
  const period = useSignal<ListeningPeriod>("week")
  const showDetails = useSignal(false)
  const stats = useLoad(
    (signal) => api((client) => client.plays.stats({ urlParams: { period: period.value, tz: browserZone() } }), signal),
    [period.value],
  )
  const data = stats.data
  const span = PERIODS.find((entry) => entry.value === period.value)!.span
  return (
    <section class="stats-page">
      <h1>Your stats</h1>
      <fieldset class="segmented">
        <legend class="visually-hidden">Period</legend>
        {PERIODS.map((entry) => (
          <button
            key={entry.value}
            type="button"
            aria-pressed={period.value === entry.value}
            onClick={() => (period.value = entry.value)}
          >
            {entry.label}
          </button>
        ))}
      </fieldset>
      <Status loaded={stats} />
      {data !== undefined && (
        <div aria-busy={data.period !== period.value}>
          <p class="muted">
            Your listening over {span}
            {data.plays + data.skips === 0 ? ": nothing played yet. Play something and it shows here." : "."}
          </p>
          <Summary stats={data} />
          <div class="stats-grid">
            <TopList
              title="Top artists"
              empty="No artists played in this period."
              rows={data.top_artists.map((row) => ({
                key: row.artist.id,
                name: row.artist.name,
                href: `/artists/${row.artist.id}`,
                plays: row.plays,
              }))}
            />
            <TopList
              title="Top albums"
              empty="No albums played in this period."
              rows={data.top_albums.map((row) => ({
                key: row.album.id,
                name: row.album.title,
                href: `/albums/${row.album.id}`,
                detail: row.album.artist_name,
                plays: row.plays,
              }))}
            />
            <TopList
              title="Top tracks"
              empty="No tracks played in this period."
              action={
                data.top_tracks.length > 0 && (
                  <button
                    type="button"
                    onClick={() =>
                      playQueue(
                        data.top_tracks.map((row) => row.track),
                        {},
                      )
                    }
                  >
                    Play your top tracks
                  </button>
                )
              }
              rows={data.top_tracks.map((row) => ({
                key: row.track.id,
                name: row.track.title,
                href: `/albums/${row.track.album_id}`,
                detail: row.track.artist_name,
                plays: row.plays,
              }))}
            />
            <TopList
              title="Top genres"
              empty="No tagged genres played in this period."
              rows={data.top_genres.map((row) => ({
                key: row.genre,
                name: row.genre,
                href: genreHref(row.genre),
                plays: row.plays,
              }))}
            />
          </div>
          <section class="stats-card" aria-labelledby="clock-heading">
            <h2 id="clock-heading">Listening clock</h2>
            <p class="muted">When you listen, by weekday and hour ({data.time_zone}).</p>
            <Heatmap title="Listening clock" clock={data.clock} />
          </section>
          <section class="stats-card" aria-labelledby="discoveries-heading">
            <h2 id="discoveries-heading">Discoveries</h2>
            <p class="muted">
              {data.discoveries_count === 0
                ? "No new artists in this period."
                : `${plural(data.discoveries_count, "artist")} you played for the first time.`}
            </p>
            {data.discoveries.length > 0 && (
              <ul class="discoveries" aria-label="New artists">
                {data.discoveries.map((row) => (
                  <li key={row.artist.id}>
                    <a href={`/artists/${row.artist.id}`}>{row.artist.name}</a>
                    <span class="muted">
                      first played {DateTime.toDateUtc(row.first_played_at).toLocaleDateString()} ·{" "}
                      {plural(row.plays, "play")}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </div>
      )}
      <details class="stats-details" onToggle={(event) => (showDetails.value = event.currentTarget.open)}>
        <summary>Recommendation details: skip rates by source</summary>
        {showDetails.value && <RecommendationDetails />}
      </details>
    </section>
  )
}
