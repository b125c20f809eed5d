import { useEffect } from "preact/hooks"
import { playbackNotice } from "../state/player.js"
import "../styles/playback.css"

/** How long a notice stays before it goes by itself. */
const NOTICE_MS = 8000

/** "Could not play X: skipped": the player never moves on silently (issue 25 item 4). Always mounted: a live region. */
export function PlaybackNotice() {
  const notice = playbackNotice.value
  useEffect(() => {
    if (notice === undefined) return
    const timer = setTimeout(() => {
      if (playbackNotice.value?.id === notice.id) playbackNotice.value = undefined
    }, NOTICE_MS)
    return () => clearTimeout(timer)
  }, [notice])
  return (
    <div class="playback-notices" role="status" aria-live="polite">
      {notice !== undefined && (
        <p class="playback-notice">
          {notice.text}
          <button type="button" aria-label="Dismiss" onClick={() => (playbackNotice.value = undefined)}>
            ×
          </button>
        </p>
      )}
    </div>
  )
}
