import { batch, computed, signal } from "@preact/signals"
import type { CastRenderer, CastStatus } from "@tonearm/core"
import { api, errorMessage, isApiError } from "./api.js"
import {
  current,
  duration,
  index,
  next,
  playIndex,
  playing,
  position,
  queue,
  repeat,
  seek,
  setRemoteOutput,
  togglePlay,
  volume,
} from "./player.js"

/**
 * Casting (issue 25 item 8): the queue plays on a network speaker (a UPnP/DLNA renderer the server drives) and
 * the player bar's transport drives it. The server holds no queue of its own: this page polls the speaker's
 * status every second, moves to the next queue entry when a track finishes there, and on "stop casting" resumes
 * in the browser at the speaker's position.
 */

export const renderers = signal<ReadonlyArray<CastRenderer>>([])
export const renderersLoading = signal(false)
/** The speaker playing now; undefined while the browser plays. */
export const castTarget = signal<CastRenderer | undefined>(undefined)
export const castStatus = signal<CastStatus | undefined>(undefined)
/** The last failure talking to the speaker, in words, cleared by the next good answer. */
export const castError = signal<string | undefined>(undefined)
export const casting = computed(() => castTarget.value !== undefined)

const POLL_MS = 1000
let poller: ReturnType<typeof setInterval> | undefined
/** The track this page asked the speaker to play, and whether it has been seen playing (so STOPPED means finished). */
let sent: { trackId: string; seenPlaying: boolean; pausedByUs: boolean } | undefined
let busy = false

export const loadRenderers = async () => {
  renderersLoading.value = true
  try {
    renderers.value = (await api((client) => client.castRenderers.renderers())).items
    castError.value = undefined
  } catch (error) {
    castError.value = errorMessage(error)
  } finally {
    renderersLoading.value = false
  }
}

const apply = (status: CastStatus) => {
  castError.value = undefined
  const active = status.state === "PLAYING" || status.state === "TRANSITIONING"
  batch(() => {
    castStatus.value = status
    if (status.position_ms !== null) position.value = status.position_ms / 1000
    if (status.duration_ms !== null && status.duration_ms > 0) duration.value = status.duration_ms / 1000
    playing.value = active
  })
  if (sent !== undefined && status.track_id === sent.trackId && status.state === "PLAYING") sent.seenPlaying = true
}

/** Runs one call to the speaker; its status answer updates the player, a failure is shown in the cast menu. */
const drive = async (call: (id: string) => Promise<CastStatus>) => {
  const target = castTarget.value
  if (target === undefined) return
  try {
    apply(await call(target.id))
  } catch (error) {
    // Signed out meanwhile: let go of the speaker here (it keeps playing; another session can take it over).
    if (isApiError(error) && error._tag === "Unauthenticated") return void stopCasting(false)
    castError.value = `${target.name}: ${errorMessage(error)}`
  }
}

const playAt = (at: number, positionMs = 0) => {
  const track = queue.value[at]
  if (track === undefined) return Promise.resolve()
  batch(() => {
    index.value = at
    position.value = positionMs / 1000
    duration.value = track.duration_ms / 1000
  })
  sent = { trackId: track.id, seenPlaying: false, pausedByUs: false }
  return drive((id) =>
    api((client) =>
      client.castRenderers.play({
        path: { id },
        payload: { track_id: track.id, ...(positionMs > 0 ? { position_ms: Math.round(positionMs) } : {}) },
      }),
    ),
  )
}

/** One poll: follow the speaker, and start the next entry when the track finished there. */
const poll = async () => {
  const target = castTarget.value
  if (target === undefined || busy) return
  busy = true
  try {
    await drive((id) => api((client) => client.castRenderers.status({ path: { id } })))
    const status = castStatus.value
    if (status === undefined || sent === undefined) return
    const finished =
      (status.state === "STOPPED" || status.state === "NO_MEDIA_PRESENT") && sent.seenPlaying && !sent.pausedByUs
    if (!finished) return
    sent = undefined
    if (repeat.value === "one") await playAt(index.value)
    else next()
  } finally {
    busy = false
  }
}

/** Plays the queue's current track on `renderer` from the current position; the browser pauses. */
export const startCasting = async (renderer: CastRenderer) => {
  if (castTarget.value?.id === renderer.id) return
  if (castTarget.value !== undefined) await stopCasting(false)
  if (playing.value) togglePlay()
  const at = index.value
  const from = position.value
  castTarget.value = renderer
  setRemoteOutput({
    load: (entry) => void playAt(entry),
    toggle: () => {
      const status = castStatus.value
      const isPlaying = status?.state === "PLAYING" || status?.state === "TRANSITIONING"
      if (sent !== undefined) sent.pausedByUs = isPlaying
      if (status?.state === "STOPPED" || status?.state === "NO_MEDIA_PRESENT") {
        void playAt(index.value)
        return
      }
      void drive((id) =>
        api((client) =>
          isPlaying ? client.castRenderers.pause({ path: { id } }) : client.castRenderers.resume({ path: { id } }),
        ),
      )
    },
    seek: (seconds) =>
      void drive((id) =>
        api((client) =>
          client.castRenderers.seek({
            path: { id },
            payload: { position_ms: Math.max(0, Math.round(seconds * 1000)) },
          }),
        ),
      ),
    setVolume: (value) =>
      void drive((id) =>
        api((client) => client.castRenderers.volume({ path: { id }, payload: { volume: Math.round(value * 100) } })),
      ),
  })
  if (current.value !== undefined) {
    await playAt(at, from * 1000)
    await drive((id) =>
      api((client) =>
        client.castRenderers.volume({ path: { id }, payload: { volume: Math.round(volume.value * 100) } }),
      ),
    )
  }
  poller = setInterval(() => void poll(), POLL_MS)
}

/** Stops the speaker and, unless told otherwise, resumes in the browser where the speaker was. */
export const stopCasting = async (resumeHere = true) => {
  const target = castTarget.value
  if (target === undefined) return
  clearInterval(poller)
  poller = undefined
  const last = castStatus.value
  const wasPlaying = last?.state === "PLAYING" || last?.state === "TRANSITIONING"
  const at = last?.position_ms ?? Math.round(position.value * 1000)
  setRemoteOutput(undefined)
  batch(() => {
    castTarget.value = undefined
    castStatus.value = undefined
    playing.value = false
  })
  sent = undefined
  await api((client) => client.castRenderers.stop({ path: { id: target.id } })).catch(() => undefined)
  if (!resumeHere || current.value === undefined) return
  // The speaker may have moved on: the browser loads the queue's current entry, then goes to the speaker's place.
  playIndex(index.value)
  if (at > 0) seek(at / 1000)
  // play() has begun: togglePlay pauses it again when the speaker was paused.
  if (!wasPlaying) togglePlay()
}
