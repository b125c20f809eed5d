import { useSignal } from "@preact/signals"
import type { RadioSeed } from "@tonearm/core"
import { errorMessage } from "../state/api.js"
import { startRadio } from "../state/radio.js"

/**
 * "Start radio" from a track, album, artist or genre: one button other pages drop in next to their Play button.
 * The radio replaces the queue and plays at once; an empty radio or a failure is said next to the button.
 */
export function RadioButton(props: { readonly seed: RadioSeed; readonly label: string }) {
  const busy = useSignal(false)
  const message = useSignal("")
  const start = async () => {
    busy.value = true
    message.value = ""
    try {
      const size = await startRadio(props.seed)
      if (size === 0) message.value = "This radio has no tracks yet."
    } catch (failure) {
      message.value = `Radio failed: ${errorMessage(failure)}`
    } finally {
      busy.value = false
    }
  }
  return (
    <span class="radio-button">
      <button type="button" onClick={start} disabled={busy.value} aria-label={`Start radio from ${props.label}`}>
        {busy.value ? "Starting radio…" : "Start radio"}
      </button>
      {message.value !== "" && (
        <span role="status" class="muted">
          {message.value}
        </span>
      )}
    </span>
  )
}
