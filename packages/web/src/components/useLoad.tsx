import { useSignal } from "@preact/signals"
import { useEffect } from "preact/hooks"
import { errorMessage } from "../state/api.js"

export interface Loaded<A> {
  readonly data: A | undefined
  readonly error: string | undefined
  readonly reload: () => void
}

/**
 * Loads data for a page: reruns when `deps` change, aborts the stale request (a signal passed to the SDK
 * call), and keeps the last good data while reloading so a refresh from the event stream does not flash.
 */
export const useLoad = <A,>(load: (signal: AbortSignal) => Promise<A>, deps: ReadonlyArray<unknown>): Loaded<A> => {
  const data = useSignal<A | undefined>(undefined)
  const error = useSignal<string | undefined>(undefined)
  const tick = useSignal(0)
  useEffect(() => {
    const controller = new AbortController()
    load(controller.signal).then(
      (value) => {
        if (controller.signal.aborted) return
        data.value = value
        error.value = undefined
      },
      (failure: unknown) => {
        if (!controller.signal.aborted) error.value = errorMessage(failure)
      },
    )
    return () => controller.abort()
  }, [...deps, tick.value])
  // peek, not value: a reload called from inside an effect must not subscribe that effect to `tick`, or the
  // effect re-runs on every reload it causes (the Likes render loop of issue 25).
  return { data: data.value, error: error.value, reload: () => (tick.value = tick.peek() + 1) }
}

/** Loading, or the error with a Retry (so "Loading…" never stays on a failed request). */
export function Status(props: { readonly loaded: Loaded<unknown> }) {
  if (props.loaded.error !== undefined)
    return (
      <div class="load-error" role="alert">
        <p>Could not load: {props.loaded.error}</p>
        <button type="button" onClick={props.loaded.reload}>
          Retry
        </button>
      </div>
    )
  if (props.loaded.data === undefined) return <p class="muted">Loading…</p>
  return null
}
