import { online, updateReady } from "../state/offline.js"
import "../styles/offline.css"

/** "You're offline" while the network is down, and "new version — reload" once a new build took over. */
export function OfflineBanner() {
  return (
    <div class="app-banners" role="status">
      {!online.value && (
        <p class="app-banner">
          You're offline. <a href="/downloads">Downloaded music</a> still plays.
        </p>
      )}
      {updateReady.value && (
        <p class="app-banner">
          A new version of Tonearm is ready.{" "}
          <button type="button" onClick={() => location.reload()}>
            Reload
          </button>
        </p>
      )}
    </div>
  )
}
