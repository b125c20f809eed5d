import type { Track } from "@tonearm/core"
import { download, downloadErrors, downloading, isDownloaded, online, removeDownload } from "../state/offline.js"

/**
 * "Download for offline" for an album or a playlist (`id` is `album:<id>` or `playlist:<id>`): progress while it
 * saves, then "Downloaded ✓" and "Remove download". `extra` are the URLs the page needs offline (its JSON, cover).
 */
export function DownloadButton(props: {
  readonly id: string
  readonly title: string
  /** The page it is on, listed under Downloads. */
  readonly href: string
  readonly tracks: ReadonlyArray<Track>
  readonly extra: ReadonlyArray<string>
}) {
  const { id, title, href, tracks, extra } = props
  const progress = downloading.value[id]
  const error = downloadErrors.value[id]
  if (progress !== undefined)
    return (
      <span class="download-state">
        <progress max={progress.total} value={progress.done} aria-label={`Downloading ${title}`} />
        <span role="status">
          Downloading {progress.done}/{progress.total}…
        </span>
      </span>
    )
  if (isDownloaded(id, tracks))
    return (
      <span class="download-state">
        <span role="status" class="downloaded">
          Downloaded ✓
        </span>
        <button type="button" onClick={() => void removeDownload(id)}>
          Remove download
        </button>
      </span>
    )
  return (
    <span class="download-state">
      <button
        type="button"
        disabled={tracks.length === 0 || !online.value}
        onClick={() => void download({ key: id, title, href, tracks, extra })}
      >
        Download for offline
      </button>
      {error !== undefined && (
        <span role="alert" class="error">
          Download failed: {error}
        </span>
      )}
    </span>
  )
}
