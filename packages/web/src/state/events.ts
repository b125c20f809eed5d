import { signal } from "@preact/signals"
import { type EventEnvelope, subscribeEvents } from "@tonearm/client-sdk"

/**
 * The live event stream (`GET /api/events/stream`) while someone is signed in. Stores (likes, playlists) and
 * pages register handlers per kind; `connectedAt` changes on every (re)connection so views refetch what they
 * show (the server keeps nothing for a client that was away).
 */
type Handler = (event: EventEnvelope) => void
const handlers = new Map<string, Set<Handler>>()
export const connectedAt = signal(0)

/** Calls `handler` for every event whose kind starts with `prefix` (`"playlist."`, `"track.liked"`…). Returns the unsubscribe. */
export const onServerEvent = (prefix: string, handler: Handler): (() => void) => {
  const set = handlers.get(prefix) ?? new Set()
  set.add(handler)
  handlers.set(prefix, set)
  return () => set.delete(handler)
}

let stop: (() => void) | undefined

export const startEvents = () => {
  stop?.()
  stop = subscribeEvents({
    onOpen: () => {
      connectedAt.value = Date.now()
      // Lets a test (and a curious user in devtools) see that live updates are on.
      document.documentElement.dataset.eventStream = "open"
    },
    onError: () => {
      document.documentElement.dataset.eventStream = "reconnecting"
    },
    onEvent: (event) => {
      for (const [prefix, set] of handlers) if (event.kind.startsWith(prefix)) for (const handler of set) handler(event)
    },
  })
}

export const stopEvents = () => {
  stop?.()
  stop = undefined
}
