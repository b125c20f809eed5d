import { effect } from "@preact/signals"
import { PLAY_QUEUE_MAX_TRACKS, type SavedPlayQueue, type TrackId } from "@tonearm/core"
import { DateTime } from "effect"
import { api } from "./api.js"
import { index, playing, position, queue, restoreQueue, source } from "./player.js"
import { session } from "./session.js"

/**
 * The queue kept on the server (`/api/me/play-queue`, the store Subsonic's savePlayQueue uses), so a reload, another
 * browser or a Subsonic app resumes it. At sign-in the saved queue is put back without playing, unless something
 * already plays; afterwards every change is saved (debounced), the position every 15 s of playback, at a pause and
 * when the page goes away.
 *
 * The save made as the page goes away may reach the server after the next page has asked for the queue (or not at
 * all, offline): it is also kept in localStorage with the server version it was based on (`basis`, the
 * `changed_at` this page last saw). The next load prefers it while the server still holds that version, i.e. when
 * no other player saved since, and sends it.
 */

const CLIENT = "Tonearm Web"
const DEBOUNCE_MS = 1000
const PLAYBACK_SAVE_MS = 15_000
/** A keepalive request carries at most 64 KB. */
const KEEPALIVE_LIMIT = 60_000
const LOCAL_KEY = "tonearm.play-queue"

type Body = ReturnType<typeof payload>
interface LocalCopy {
  readonly user: string
  readonly basis: string | null
  readonly body: Body
}

/** Set once the saved queue was read (or could not be) for this session: before that nothing is saved over it. */
let ready = false
let lastSaved = ""
let lastPositionMs = -1
/** What the server acknowledged last: a save still in flight as the page closes may never have left it. */
let confirmed = { shape: "", positionMs: -1 }
/** The server's `changed_at` of the last queue this page read or saved. */
let basis: string | null = null
let timer: ReturnType<typeof setTimeout> | undefined

const shape = () => `${source.value ?? ""}|${index.value}|${queue.value.map((track) => track.id).join(",")}`
const versionOf = (saved: SavedPlayQueue) => (saved.changed_at === null ? null : DateTime.formatIso(saved.changed_at))

/** What is sent: at most the server's cap, a window around the playing entry when the queue is longer. */
const payload = () => {
  const tracks = queue.value
  const at = Math.max(index.value, 0)
  const start =
    tracks.length <= PLAY_QUEUE_MAX_TRACKS ? 0 : Math.max(0, Math.min(at - 100, tracks.length - PLAY_QUEUE_MAX_TRACKS))
  const ids = tracks.slice(start, start + PLAY_QUEUE_MAX_TRACKS).map((track) => track.id as TrackId)
  return {
    track_ids: ids,
    current_index: ids.length === 0 || index.value < 0 ? null : at - start,
    position_ms: Math.max(0, Math.round(position.value * 1000)),
    source: source.value ?? null,
    changed_by: CLIENT,
  }
}

const readLocal = (user: string): LocalCopy | undefined => {
  try {
    const copy = JSON.parse(localStorage.getItem(LOCAL_KEY) ?? "null") as LocalCopy | null
    return copy !== null && copy.user === user ? copy : undefined
  } catch {
    return undefined
  }
}

const save = (unloading = false) => {
  if (timer !== undefined) clearTimeout(timer)
  timer = undefined
  const user = session.peek()
  if (!ready || !user) return
  const body = payload()
  const next = shape()
  const against = unloading ? confirmed : { shape: lastSaved, positionMs: lastPositionMs }
  if (next === against.shape && body.position_ms === against.positionMs) return
  lastSaved = next
  lastPositionMs = body.position_ms
  if (unloading) {
    const json = JSON.stringify(body)
    if (json.length > KEEPALIVE_LIMIT) return // a long queue keeps its last save; only the position is older
    try {
      localStorage.setItem(LOCAL_KEY, JSON.stringify({ user: user.id, basis, body } satisfies LocalCopy))
    } catch {
      // Storage full or off: the request below is all there is.
    }
    // The SDK's request would start in a later task, which a closing page never runs: sent now, kept alive.
    void fetch("/api/me/play-queue", {
      method: "PUT",
      keepalive: true,
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: json,
    }).catch(() => undefined)
    return
  }
  void api((client) => client.playQueue.save({ payload: body })).then(
    (saved) => {
      basis = versionOf(saved)
      confirmed = { shape: next, positionMs: body.position_ms }
    },
    () => {
      // Not saved (offline, server away): the next change or tick tries again.
      lastSaved = ""
    },
  )
}

const schedule = () => {
  if (timer !== undefined) clearTimeout(timer)
  timer = setTimeout(() => save(), DEBOUNCE_MS)
}

const restore = async (user: string) => {
  try {
    let saved = await api((client) => client.playQueue.get())
    const local = readLocal(user)
    localStorage.removeItem(LOCAL_KEY)
    // The last page's queue, when no player saved since it read the server's: newer than what the server has.
    if (local !== undefined && local.basis === versionOf(saved)) {
      const body = local.body
      saved = await api((client) => client.playQueue.save({ payload: body }))
    }
    basis = versionOf(saved)
    // Something started playing while the answers were on their way: that wins, and is saved next.
    if (queue.peek().length === 0 && saved.tracks.length > 0) {
      restoreQueue(saved.tracks, saved.current_index ?? 0, saved.position_ms / 1000, saved.source ?? undefined)
      lastSaved = shape()
      lastPositionMs = saved.position_ms
      confirmed = { shape: lastSaved, positionMs: lastPositionMs }
    }
  } catch {
    // No saved queue to read (offline): start fresh, and save what the listener does.
  } finally {
    ready = true
  }
}

effect(() => {
  const user = session.value
  if (user) void restore(user.id)
  else {
    ready = false
    lastSaved = ""
    lastPositionMs = -1
    confirmed = { shape: "", positionMs: -1 }
    basis = null
  }
})

// Any change of the queue, the playing entry or the source, and a pause or a start (the position to resume at).
effect(() => {
  shape()
  void playing.value
  schedule()
})

setInterval(() => {
  if (playing.peek()) save()
}, PLAYBACK_SAVE_MS)

addEventListener("pagehide", () => {
  if (queue.peek().length > 0) save(true)
})
