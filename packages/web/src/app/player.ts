import { batch, computed, effect, signal } from "@preact/signals"
import { trackStreamUrl } from "@tonearm/client-sdk"
import { isSkip, type Track } from "@tonearm/core"
import { DateTime } from "effect"
import { api, isApiError } from "./api.js"
import { clientId } from "./clientId.js"
import {
  type AppliedGain,
  elementVolume,
  isReplayGainMode,
  type ReplayGainMode,
  replayGainFor,
  resolveReplayGainMode,
} from "./replayGain.js"

/**
 * The player: ONE audio element for the whole app (it lives outside the page tree, so navigation never
 * interrupts it), the queue, and the play events that teach the server (spec "Play events").
 *
 * Reporting: `play_started` once the track really plays (with the queue's `source`, `device_class: "web"`,
 * the browser's `client_id`); when the track ends by itself `play_ended` with the time actually listened;
 * when the listener moves on early `play_skipped` at the position, or `play_ended` when that position no
 * longer counts as a skip by the server's own rule (`isSkip` from @tonearm/core), so listening most of a
 * track and pressing next is still a play. A play whose start could not reach the server is kept in
 * localStorage and sent later as `play_offline` with its original start time.
 */

export type RepeatMode = "off" | "all" | "one"

export interface PlayOptions {
  readonly startIndex?: number
  /** `album:<id>`, `artist:<id>`, `playlist:<id>`, `for_you`, `discover`, `daily_mix:2`, `radio:<id>`…; none for a plain search play. */
  readonly source?: string
}

export const audio = new Audio()
audio.preload = "auto"
audio.setAttribute("aria-hidden", "true")
audio.id = "tonearm-audio"
document.body.appendChild(audio)

export const queue = signal<ReadonlyArray<Track>>([])
export const index = signal(-1)
export const source = signal<string | undefined>(undefined)
export const playing = signal(false)
export const position = signal(0)
export const duration = signal(0)
export const volume = signal(Number(localStorage.getItem("tonearm.volume") ?? "1"))
export const muted = signal(false)
export const shuffle = signal(false)
export const repeat = signal<RepeatMode>("off")
export const current = computed(() => queue.value[index.value])

// ---- ReplayGain ------------------------------------------------------------------------------------------------

const REPLAY_GAIN_KEY = "tonearm.replay-gain"
const storedMode = localStorage.getItem(REPLAY_GAIN_KEY)
/** The listener's ReplayGain setting (Playback settings), kept in this browser. */
export const replayGainMode = signal<ReplayGainMode>(isReplayGainMode(storedMode) ? storedMode : "off")
export const setReplayGainMode = (mode: ReplayGainMode) => {
  replayGainMode.value = mode
  localStorage.setItem(REPLAY_GAIN_KEY, mode)
}
/** The gain the playing track gets (replayGain.ts has the rule); undefined when nothing plays. */
export const appliedGain = computed((): AppliedGain | undefined => {
  const track = current.value
  if (track === undefined) return undefined
  const mode = resolveReplayGainMode(replayGainMode.value, {
    source: source.value,
    shuffled: shuffle.value,
    albumId: track.album_id,
  })
  return replayGainFor(track.replay_gain, mode)
})
/**
 * The element plays at the listener's volume times the track's gain, peak-limited and never above 1 (an element
 * cannot amplify). No Web Audio graph: playback stays a plain media element, which keeps playing in background
 * tabs and on locked phones where an AudioContext may be suspended.
 */
effect(() => {
  audio.volume = elementVolume(volume.value, appliedGain.value?.scale ?? 1)
})

/** The original order, kept while shuffle is on so turning it off restores it. */
let unshuffled: ReadonlyArray<Track> | undefined

// ---- play events ---------------------------------------------------------------------------------------------

interface OpenPlay {
  readonly track: Track
  readonly source: string | undefined
  readonly startedAt: string
  /** Set when play_started reached the server. */
  playEventId?: string
  /** Set when play_started could not reach the server: the pending offline record's key. */
  offlineKey?: string
  listenedMs: number
  lastTime: number
  /** How it was closed, once it is (the end is reported after the start lands). */
  closed?: "ended" | "left"
}

let open: OpenPlay | undefined

const OFFLINE_KEY = "tonearm.offline-plays"

export interface OfflinePlay {
  readonly key: string
  readonly track_id: string
  readonly client_id: string
  readonly at: string
  readonly source?: string
  readonly device_class: "web"
  duration_played_ms: number
  /** Still playing: not sent until it ends (or the page is gone and the next load finds it). */
  open?: boolean
}

const readOffline = (): Array<OfflinePlay> => {
  try {
    return JSON.parse(localStorage.getItem(OFFLINE_KEY) ?? "[]") as Array<OfflinePlay>
  } catch {
    return []
  }
}
const writeOffline = (plays: ReadonlyArray<OfflinePlay>) => localStorage.setItem(OFFLINE_KEY, JSON.stringify(plays))

/** Whether a failure means the server was not reached (network down, server away) rather than a refusal. */
const unreachable = (error: unknown) =>
  !isApiError(error) || error._tag === "RequestError" || error._tag === "ResponseError" || error._tag === "Internal"

const reportStart = (play: OpenPlay) => {
  api((client) =>
    client.plays.report({
      payload: {
        type: "play_started",
        track_id: play.track.id,
        client_id: clientId(),
        device_class: "web",
        ...(play.source === undefined ? {} : { source: play.source }),
      },
    }),
  ).then(
    (created) => {
      if (created !== undefined && "play_event_id" in created) play.playEventId = created.play_event_id
      if (play.closed !== undefined) void reportEnd(play, play.closed)
    },
    (error) => {
      if (!unreachable(error)) return
      const key = `${play.startedAt}:${play.track.id}`
      play.offlineKey = key
      writeOffline([
        ...readOffline(),
        {
          key,
          track_id: play.track.id,
          client_id: clientId(),
          at: play.startedAt,
          ...(play.source === undefined ? {} : { source: play.source }),
          device_class: "web",
          duration_played_ms: Math.round(play.listenedMs),
          open: open === play,
        },
      ])
    },
  )
}

const reportEnd = async (play: OpenPlay, how: "ended" | "left", keepalive = false) => {
  const listened = Math.round(play.listenedMs)
  if (play.offlineKey !== undefined) {
    writeOffline(
      readOffline().map((pending) =>
        pending.key === play.offlineKey ? { ...pending, duration_played_ms: listened, open: false } : pending,
      ),
    )
    void flushOffline()
    return
  }
  if (play.playEventId === undefined) return // the start is still in flight: reportStart ends it when it lands
  const positionMs = Math.round(play.lastTime * 1000)
  const payload =
    how === "left" && isSkip(listened, play.track.duration_ms)
      ? { type: "play_skipped" as const, play_event_id: play.playEventId, position_ms: positionMs }
      : { type: "play_ended" as const, play_event_id: play.playEventId, duration_played_ms: listened }
  await api((client) => client.plays.report({ payload: payload as never }), undefined, { keepalive }).catch(
    (error: unknown) => {
      // The start reached the server but the end cannot: keep the end and send it with the offline plays.
      if (unreachable(error)) writeEnds([...readEnds(), payload])
    },
  )
}

const ENDS_KEY = "tonearm.pending-ends"
type PendingEnd =
  | { readonly type: "play_skipped"; readonly play_event_id: string; readonly position_ms: number }
  | { readonly type: "play_ended"; readonly play_event_id: string; readonly duration_played_ms: number }
const readEnds = (): Array<PendingEnd> => {
  try {
    return JSON.parse(localStorage.getItem(ENDS_KEY) ?? "[]") as Array<PendingEnd>
  } catch {
    return []
  }
}
const writeEnds = (ends: ReadonlyArray<PendingEnd>) => localStorage.setItem(ENDS_KEY, JSON.stringify(ends))

let flushing = false
/** Sends every finished offline play as `play_offline` with its original start time; keeps those that fail. */
export const flushOffline = async () => {
  if (flushing) return
  flushing = true
  try {
    for (const end of readEnds()) {
      try {
        await api((client) => client.plays.report({ payload: end as never }))
      } catch (error) {
        if (unreachable(error)) return
      }
      writeEnds(readEnds().filter((other) => other.play_event_id !== end.play_event_id))
    }
    for (const pending of readOffline()) {
      if (pending.open && open?.offlineKey === pending.key) continue
      try {
        await api((client) =>
          client.plays.report({
            payload: {
              type: "play_offline",
              track_id: pending.track_id as Track["id"],
              client_id: pending.client_id,
              at: DateTime.unsafeMake(pending.at),
              duration_played_ms: pending.duration_played_ms,
              device_class: pending.device_class,
              ...(pending.source === undefined ? {} : { source: pending.source }),
            },
          }),
        )
      } catch (error) {
        if (unreachable(error)) break
        // Refused for good (the track is gone, say): dropping it is the only way forward.
      }
      writeOffline(readOffline().filter((other) => other.key !== pending.key))
    }
  } finally {
    flushing = false
  }
}
addEventListener("online", () => void flushOffline())
setInterval(() => void flushOffline(), 30_000)

const closePlay = (how: "ended" | "left") => {
  const play = open
  open = undefined
  if (play === undefined) return
  play.closed = how
  void reportEnd(play, how)
}

// The tab is closing (or going into the back-forward cache): report the open play now, as far as it got.
addEventListener("pagehide", () => {
  const play = open
  if (play === undefined) return
  open = undefined
  play.closed = "left"
  void reportEnd(play, "left", true)
})

// ---- the audio element ---------------------------------------------------------------------------------------

audio.addEventListener("playing", () => {
  playing.value = true
  const track = current.value
  if (track !== undefined && open === undefined) {
    open = {
      track,
      source: source.value,
      startedAt: new Date().toISOString(),
      listenedMs: 0,
      lastTime: audio.currentTime,
    }
    reportStart(open)
  }
})
audio.addEventListener("pause", () => {
  playing.value = false
})
audio.addEventListener("timeupdate", () => {
  position.value = audio.currentTime
  if ("mediaSession" in navigator && Number.isFinite(audio.duration) && audio.duration > 0) {
    try {
      navigator.mediaSession.setPositionState({
        duration: audio.duration,
        position: Math.min(audio.currentTime, audio.duration),
        playbackRate: audio.playbackRate || 1,
      })
    } catch {
      // A browser without position state.
    }
  }
  if (open !== undefined) {
    const delta = audio.currentTime - open.lastTime
    // Only steady playback counts as listening: a seek is a jump of more than a couple of seconds.
    if (delta > 0 && delta < 2) open.listenedMs += delta * 1000
    open.lastTime = audio.currentTime
  }
})
audio.addEventListener("seeking", () => {
  if (open !== undefined) open.lastTime = audio.currentTime
})
audio.addEventListener("durationchange", () => {
  duration.value = Number.isFinite(audio.duration) ? audio.duration : 0
})
audio.addEventListener("ended", () => {
  if (open !== undefined) open.lastTime = audio.currentTime
  closePlay("ended")
  if (repeat.value === "one") {
    audio.currentTime = 0
    void audio.play()
    return
  }
  advance(1, false)
})

const load = (at: number, autoplay = true) => {
  const track = queue.value[at]
  if (track === undefined) return
  closePlay("left")
  batch(() => {
    index.value = at
    position.value = 0
    duration.value = track.duration_ms / 1000
  })
  audio.src = trackStreamUrl(track.id)
  updateMediaSession(track)
  if (autoplay) void audio.play().catch(() => undefined)
}

const advance = (step: 1 | -1, byUser: boolean) => {
  const next = index.value + step
  if (next >= 0 && next < queue.value.length) return load(next)
  if (step === 1 && repeat.value === "all" && queue.value.length > 0) return load(0)
  if (!byUser) {
    playing.value = false
  }
}

// ---- the player API (pages and Web-B's surfaces call these) ------------------------------------------------

/** Replaces the queue with `tracks` and plays from `startIndex`; `source` is reported with each play. */
export const playQueue = (tracks: ReadonlyArray<Track>, options: PlayOptions = {}) => {
  if (tracks.length === 0) return
  const start = Math.min(Math.max(options.startIndex ?? 0, 0), tracks.length - 1)
  closePlay("left")
  batch(() => {
    unshuffled = undefined
    shuffle.value = false
    queue.value = tracks
    source.value = options.source
  })
  load(start)
}

/** Adds tracks after the current one ("play next") or at the end. */
export const enqueue = (tracks: ReadonlyArray<Track>, where: "next" | "end" = "end") => {
  const list = [...queue.value]
  list.splice(where === "next" ? index.value + 1 : list.length, 0, ...tracks)
  queue.value = list
  if (index.value < 0) load(0)
}

export const playIndex = (at: number) => load(at)
export const next = () => advance(1, true)
export const previous = () => {
  if (audio.currentTime > 3 || index.value <= 0) {
    audio.currentTime = 0
    return
  }
  advance(-1, true)
}
export const togglePlay = () => {
  if (current.value === undefined) return
  if (audio.paused) void audio.play().catch(() => undefined)
  else audio.pause()
}
export const seek = (seconds: number) => {
  if (current.value === undefined) return
  audio.currentTime = Math.max(0, Math.min(seconds, duration.value || audio.duration || 0))
  position.value = audio.currentTime
}
export const seekBy = (delta: number) => seek(audio.currentTime + delta)
export const setVolume = (value: number) => {
  const clamped = Math.max(0, Math.min(1, value))
  volume.value = clamped
  localStorage.setItem("tonearm.volume", String(clamped))
}
export const toggleMute = () => {
  audio.muted = !audio.muted
  muted.value = audio.muted
}
export const cycleRepeat = () => {
  repeat.value = repeat.value === "off" ? "all" : repeat.value === "all" ? "one" : "off"
}

/** Shuffle reorders what comes after the current track; turning it off restores the original order. */
export const toggleShuffle = () => {
  const currentTrack = current.value
  if (!shuffle.value) {
    unshuffled = queue.value
    const rest = queue.value.filter((_, at) => at !== index.value)
    for (let at = rest.length - 1; at > 0; at--) {
      const other = Math.floor(Math.random() * (at + 1))
      ;[rest[at], rest[other]] = [rest[other]!, rest[at]!]
    }
    batch(() => {
      queue.value = currentTrack === undefined ? rest : [currentTrack, ...rest]
      index.value = currentTrack === undefined ? -1 : 0
      shuffle.value = true
    })
  } else {
    const original = unshuffled ?? queue.value
    batch(() => {
      queue.value = original
      index.value = currentTrack === undefined ? -1 : original.findIndex((track) => track.id === currentTrack.id)
      shuffle.value = false
    })
    unshuffled = undefined
  }
}

/** Removes one entry of the queue (not the playing one). */
export const removeFromQueue = (at: number) => {
  if (at === index.value) return
  const list = [...queue.value]
  list.splice(at, 1)
  batch(() => {
    queue.value = list
    if (at < index.value) index.value = index.value - 1
  })
}

// ---- Media Session (lock screen, hardware keys) --------------------------------------------------------------

const updateMediaSession = (track: Track) => {
  if (!("mediaSession" in navigator)) return
  navigator.mediaSession.metadata = new MediaMetadata({
    title: track.title,
    artist: track.artist_name,
    album: track.album_title,
    artwork: [{ src: `/api/albums/${track.album_id}/cover`, sizes: "300x300" }],
  })
}

if ("mediaSession" in navigator) {
  const handlers: Array<[MediaSessionAction, MediaSessionActionHandler]> = [
    ["play", () => void audio.play().catch(() => undefined)],
    ["pause", () => audio.pause()],
    ["previoustrack", previous],
    ["nexttrack", next],
    ["seekbackward", (details) => seekBy(-(details.seekOffset ?? 10))],
    ["seekforward", (details) => seekBy(details.seekOffset ?? 10)],
    ["seekto", (details) => seek(details.seekTime ?? 0)],
    ["stop", () => audio.pause()],
  ]
  for (const [action, handler] of handlers) {
    try {
      navigator.mediaSession.setActionHandler(action, handler)
    } catch {
      // An action this browser does not know.
    }
  }
}

/** Stops playback and forgets the queue (sign-out). */
export const resetPlayer = () => {
  closePlay("left")
  audio.pause()
  audio.removeAttribute("src")
  batch(() => {
    queue.value = []
    index.value = -1
    playing.value = false
  })
}
