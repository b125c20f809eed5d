import { current, index, playIndex, queue, removeFromQueue, source } from "../../app/player.js"
import { TrackArtists } from "../../components/ArtistLinks.js"
import { formatMs, plural } from "../../components/format.js"
import { Icon } from "../../components/Icon.js"

/** What plays now and next; activate an entry to jump to it. */
export default function QueuePage() {
  const list = queue.value
  return (
    <section>
      <h1>Queue</h1>
      {current.value === undefined ? (
        <p class="muted">The queue is empty: play an album, a playlist or a track.</p>
      ) : (
        <p class="muted">
          {plural(list.length, "track")}
          {source.value ? ` · from ${source.value}` : ""}
        </p>
      )}
      <ol class="list" aria-label="Queue">
        {list.map((track, at) => (
          <li
            key={`${at}:${track.id}`}
            aria-current={at === index.value ? "true" : undefined}
            class={at === index.value ? "current" : ""}
          >
            <span class="muted num">{at + 1}</span>
            <button type="button" class="link-like" onClick={() => playIndex(at)} aria-label={`Play ${track.title}`}>
              {track.title}
            </button>
            <span class="muted">
              <TrackArtists track={track} />
            </span>
            <span class="muted time">{formatMs(track.duration_ms)}</span>
            {at !== index.value && (
              <button
                type="button"
                class="icon"
                aria-label={`Remove ${track.title} from the queue`}
                onClick={() => removeFromQueue(at)}
              >
                <Icon name="close" />
              </button>
            )}
          </li>
        ))}
      </ol>
    </section>
  )
}
