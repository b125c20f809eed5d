import { useSignal } from "@preact/signals"
import { useEffect, useId, useRef } from "preact/hooks"
import {
  castError,
  castStatus,
  castTarget,
  loadRenderers,
  renderers,
  renderersLoading,
  startCasting,
  stopCasting,
} from "../state/cast.js"
import "../styles/cast.css"

const CAST_ICON =
  "M1 18v3h3a3 3 0 0 0-3-3zm0-4v2a5 5 0 0 1 5 5h2a7 7 0 0 0-7-7zm0-4v2a9 9 0 0 1 9 9h2C12 14.92 7.07 10 1 10zm20-7H3c-1.1 0-2 .9-2 2v3h2V5h18v14h-7v2h7c1.1 0 2-.9 2-2V5c0-1.1-.9-2-2-2z"

const STATE_WORDS: Record<string, string> = {
  PLAYING: "playing",
  PAUSED_PLAYBACK: "paused",
  STOPPED: "stopped",
  TRANSITIONING: "starting",
  NO_MEDIA_PRESENT: "idle",
}

/**
 * The player bar's cast button: lists the speakers the server found (UPnP/DLNA renderers) and "This browser".
 * Choosing a speaker moves the queue's current track there; "Stop casting" brings it back to the browser.
 */
export function CastButton() {
  const open = useSignal(false)
  const root = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  const target = castTarget.value
  // The button lives in the player bar and in the phone's Now Playing: ids of its own.
  const panelId = useId()
  const headingId = useId()
  useEffect(() => {
    if (!open.value) return
    void loadRenderers()
    const outside = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) open.value = false
    }
    const escape = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return
      event.stopPropagation()
      open.value = false
      button.current?.focus()
    }
    document.addEventListener("mousedown", outside)
    root.current?.addEventListener("keydown", escape)
    const element = root.current
    return () => {
      document.removeEventListener("mousedown", outside)
      element?.removeEventListener("keydown", escape)
    }
  }, [open.value])
  const close = () => {
    open.value = false
    button.current?.focus()
  }
  const state = castStatus.value?.state
  return (
    <div class="cast" ref={root}>
      <button
        type="button"
        ref={button}
        class={`icon${target !== undefined ? " casting" : ""}`}
        aria-label={target !== undefined ? `Casting to ${target.name}` : "Cast to a speaker"}
        aria-expanded={open.value}
        aria-controls={open.value ? panelId : undefined}
        onClick={() => (open.value = !open.value)}
      >
        <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
          <path d={CAST_ICON} fill="currentColor" />
        </svg>
      </button>
      {target !== undefined && (
        <span class="cast-label" aria-hidden="true">
          {target.name}
        </span>
      )}
      {open.value && (
        <section class="cast-panel" id={panelId} aria-labelledby={headingId}>
          <p class="cast-heading" id={headingId}>
            Play on
          </p>
          <ul>
            <li>
              <button
                type="button"
                aria-pressed={target === undefined}
                onClick={() => {
                  close()
                  void stopCasting()
                }}
              >
                This browser
              </button>
            </li>
            {renderers.value.map((renderer) => (
              <li key={renderer.id}>
                <button
                  type="button"
                  aria-pressed={target?.id === renderer.id}
                  onClick={() => {
                    close()
                    void startCasting(renderer)
                  }}
                >
                  {renderer.name}
                </button>
              </li>
            ))}
          </ul>
          {renderers.value.length === 0 && !renderersLoading.value && (
            <p class="muted">No speakers found. The server looks for UPnP/DLNA speakers on its network.</p>
          )}
          {renderersLoading.value && renderers.value.length === 0 && <p class="muted">Looking for speakers…</p>}
          {castError.value !== undefined && <p class="cast-panel-error">{castError.value}</p>}
          {target !== undefined && (
            <button
              type="button"
              class="cast-stop"
              onClick={() => {
                close()
                void stopCasting()
              }}
            >
              Stop casting
            </button>
          )}
        </section>
      )}
      <span class="visually-hidden" role="status">
        {target !== undefined ? `Casting to ${target.name}${state ? `, ${STATE_WORDS[state] ?? state}` : ""}` : ""}
      </span>
      {castError.value !== undefined && !open.value && (
        <span class="cast-error" role="alert">
          {castError.value}
        </span>
      )}
    </div>
  )
}
