import { plural } from "../../components/format.js"
import { downloads, removeDownload } from "../../state/offline.js"
import "../../styles/offline.css"

/** What is downloaded in this browser: the way to one's music when the network is down. */
export default function DownloadsPage() {
  const saved = Object.entries(downloads.value).sort(([, a], [, b]) => a.title.localeCompare(b.title))
  return (
    <section>
      <h1>Downloads</h1>
      <p class="muted">Albums and playlists saved in this browser: they play without a network.</p>
      {saved.length === 0 ? (
        <p class="muted">Nothing downloaded yet: open an album or a playlist and choose Download for offline.</p>
      ) : (
        <ul class="list" aria-label="Downloaded albums and playlists">
          {saved.map(([key, item]) => (
            <li key={key}>
              <div class="download-entry">
                <a href={item.href}>{item.title}</a>
                <span class="muted">
                  {key.startsWith("album:") ? "Album" : "Playlist"} · {plural(item.tracks, "track")}
                </span>
              </div>
              <button
                type="button"
                onClick={() => void removeDownload(key)}
                aria-label={`Remove download of ${item.title}`}
              >
                Remove download
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
