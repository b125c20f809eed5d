import { batch, computed, effect, signal } from "@preact/signals"
import { trackStreamUrl } from "@tonearm/client-sdk"
import type { PlaybackErrorKind, Track } from "@tonearm/core"
import { DateTime } from "effect"
import { api, isApiError } from "./api.js"
import { clientId } from "./clientId.js"
import {
  crossfadeSeconds,
  fadeLevels,
  fallbackChoice,
  firstChoice,
  parseCrossfade,
  recoverDrop,
  type StreamChoice,
  streamOptions,
} from "./playbackFormat.js"
import { listenedBetween, offlinePlayedMs, type PlayClose, type PlayEnd, playEnd } from "./playReport.js"
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
 * longer counts as a skip by the server's own rule, so listening most of a track and pressing next is still a
 * play (the rules: playReport.ts). A play whose start could not reach the server is kept in
 * localStorage and sent later as `play_offline` with its original start time.
 */

export type RepeatMode = "off" | "all" | "one"

export interface PlayOptions {
  readonly startIndex?: number
  /** `album:<id>`, `artist:<id>`, `playlist:<id>`, `for_you`, `discover`, `daily_mix:2`, `radio:<id>`…; none for a plain search play. */
  readonly source?: string
}

const ACTIVE_ID = "tonearm-audio"
const STANDBY_ID = "tonearm-audio-next"
const makeElement = (id: string) => {
  const element = new Audio()
  element.preload = "auto"
  element.setAttribute("aria-hidden", "true")
  element.id = id
  document.body.appendChild(element)
  return element
}
/**
 * The element that plays now. Two elements take turns (gapless, crossfade): the standby preloads the next track
 * and becomes the active one at the track change. A live binding, always the element with id `tonearm-audio`.
 */
export let audio = makeElement(ACTIVE_ID)
let standby = makeElement(STANDBY_ID)

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
/** A track change that fades: the element fading out, and the timer that moves both levels. */
let fade: { readonly outgoing: HTMLAudioElement; readonly timer: ReturnType<typeof setInterval> } | undefined
const targetVolume = () => elementVolume(volume.value, appliedGain.value?.scale ?? 1)
effect(() => {
  const level = targetVolume()
  // During a crossfade the fade's timer sets the levels.
  if (fade === undefined) audio.volume = level
})

// ---- crossfade setting -----------------------------------------------------------------------------------------

const CROSSFADE_KEY = "tonearm.crossfade"
/** Seconds the end of a track fades into the next (0 = off, gapless); never between tracks of one album. */
export const crossfade = signal(parseCrossfade(localStorage.getItem(CROSSFADE_KEY)))
export const setCrossfade = (seconds: number) => {
  crossfade.value = parseCrossfade(String(seconds))
  localStorage.setItem(CROSSFADE_KEY, String(crossfade.value))
}

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
  closed?: PlayClose
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
          duration_played_ms: offlinePlayedMs(play.listenedMs, play.track.duration_ms),
          open: open === play,
        },
      ])
    },
  )
}

const reportEnd = async (play: OpenPlay, how: PlayClose, keepalive = false) => {
  if (play.offlineKey !== undefined) {
    const listened = offlinePlayedMs(play.listenedMs, play.track.duration_ms)
    writeOffline(
      readOffline().map((pending) =>
        pending.key === play.offlineKey ? { ...pending, duration_played_ms: listened, open: false } : pending,
      ),
    )
    void flushOffline()
    return
  }
  if (play.playEventId === undefined) return // the start is still in flight: reportStart ends it when it lands
  const payload = playEnd(play.playEventId, how, play.listenedMs, play.lastTime, play.track.duration_ms)
  await api((client) => client.plays.report({ payload: payload as never }), undefined, { keepalive }).catch(
    (error: unknown) => {
      // The start reached the server but the end cannot: keep the end and send it with the offline plays.
      if (unreachable(error)) writeEnds([...readEnds(), payload])
    },
  )
}

const ENDS_KEY = "tonearm.pending-ends"
const readEnds = (): Array<PlayEnd> => {
  try {
    return JSON.parse(localStorage.getItem(ENDS_KEY) ?? "[]") as Array<PlayEnd>
  } catch {
    return []
  }
}
const writeEnds = (ends: ReadonlyArray<PlayEnd>) => localStorage.setItem(ENDS_KEY, JSON.stringify(ends))

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

const closePlay = (how: PlayClose) => {
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

// ---- the audio elements --------------------------------------------------------------------------------------

/** What an element was given: the track, which bytes (original or a transcode) and where that stream starts. */
interface Loaded {
  readonly track: Track
  readonly choice: StreamChoice
  /** Seconds into the track where the stream starts (a transcode asked with `timeOffset`). */
  readonly offset: number
  readonly url: string
  /** What failed so far for this track, for the playback-error report. */
  readonly failures: ReadonlyArray<string>
  /** Where the transcode was last asked again after its stream broke (playbackFormat.ts `recoverDrop`). */
  readonly reaskedAt?: number | undefined
}
const loaded = new Map<HTMLAudioElement, Loaded>()

const canPlay = (mime: string) => audio.canPlayType(mime) !== ""

/** The position in the track (a transcode that started at an offset counts from there). */
const trackTime = (element: HTMLAudioElement = audio) => (loaded.get(element)?.offset ?? 0) + element.currentTime

/** `lazy`: nothing is fetched until the element plays (a paused track's re-ask holds no transcode meanwhile). */
const setSource = (element: HTMLAudioElement, entry: Omit<Loaded, "url">, lazy = false) => {
  const url = trackStreamUrl(entry.track.id, "", streamOptions(entry.choice, entry.offset))
  loaded.set(element, { ...entry, url })
  element.preload = lazy ? "none" : "auto"
  element.src = url
}

/** Whether an element still holds the stream it was given (nothing cleared or broke it since). */
const holds = (element: HTMLAudioElement, track: Track) => {
  const entry = loaded.get(element)
  return (
    entry !== undefined &&
    entry.track.id === track.id &&
    element.error === null &&
    element.src === new URL(entry.url, location.href).href
  )
}

const release = (element: HTMLAudioElement) => {
  loaded.delete(element)
  element.pause()
  if (element.hasAttribute("src")) {
    element.removeAttribute("src")
    element.load()
  }
}

/** The standby takes over: it gets the active id and the listener's rate and mute; the old one becomes standby. */
const activate = (element: HTMLAudioElement) => {
  const previous = audio
  if (previous === element) return
  element.defaultPlaybackRate = previous.defaultPlaybackRate
  element.playbackRate = previous.playbackRate
  element.muted = previous.muted
  previous.id = STANDBY_ID
  element.id = ACTIVE_ID
  standby = previous
  audio = element
}

const stopFade = () => {
  const ending = fade
  if (ending === undefined) return
  fade = undefined
  clearInterval(ending.timer)
  if (ending.outgoing !== audio) release(ending.outgoing)
  audio.volume = targetVolume()
}

// ---- playback errors ---------------------------------------------------------------------------------------------

/** A short line under the player ("Could not play X: skipped"); `id` tells two equal notices apart. */
export const playbackNotice = signal<{ readonly id: number; readonly text: string } | undefined>(undefined)
let noticeCount = 0
const showNotice = (text: string) => {
  noticeCount += 1
  playbackNotice.value = { id: noticeCount, text }
}

/** Reported once per track and kind in this page's life (a retry of the same failure is not news). */
const reportedErrors = new Set<string>()
const reportPlaybackError = (track: Track, kind: PlaybackErrorKind, message: string) => {
  const key = `${track.id}:${kind}`
  if (reportedErrors.has(key)) return
  reportedErrors.add(key)
  void api((client) =>
    client.playbackErrors.report({ payload: { track_id: track.id, kind, client_id: clientId(), message } }),
  ).catch(() => undefined)
}

const MEDIA_ERRORS: Record<number, string> = {
  2: "MEDIA_ERR_NETWORK",
  3: "MEDIA_ERR_DECODE",
  4: "MEDIA_ERR_SRC_NOT_SUPPORTED",
}

/** Whether the listener wants sound (an error pauses the element, so `paused` cannot tell). */
let meantToPlay = false

/** Tracks given up in a row: when every track of the queue failed, the player stops instead of looping. */
let failuresInARow = 0

/**
 * The active track failed: a transcode that broke after playing is asked again from its position; else its one
 * fallback (a transcode, from where it stalled), else a notice, a `load_failed` report when nothing could load it,
 * and the next track. Stalls and zero durations are reported when seen.
 */
const trackFailed = (kind: PlaybackErrorKind, why: string) => {
  const entry = loaded.get(audio)
  if (entry === undefined) return
  const failures = [...entry.failures, `${entry.choice}: ${why}`]
  // A restored queue loads without playing: its fallback and its skip do not start the music either.
  const resume = meantToPlay
  // A transcode that played and then broke (the server cut a connection paused too long): asked again from where
  // it was, not a failure.
  const drop = recoverDrop({
    choice: entry.choice,
    delivered: kind !== "zero_duration" && audio.readyState >= HTMLMediaElement.HAVE_METADATA,
    position: trackTime(),
    duration: duration.value,
    reaskedAt: entry.reaskedAt,
    ended: false,
  })
  if (drop._tag === "finished") return endActive()
  if (drop._tag === "reask") return reask({ ...entry, failures }, drop.at, resume)
  if (kind !== "load_failed") reportPlaybackError(entry.track, kind, why)
  const fallback = fallbackChoice(entry.track.file_format, entry.choice, canPlay)
  if (fallback !== undefined) {
    const offset = kind === "stalled" ? trackTime() : 0
    setSource(audio, { track: entry.track, choice: fallback, offset, failures })
    if (resume) void audio.play().catch(() => undefined)
    return
  }
  if (kind === "load_failed") reportPlaybackError(entry.track, "load_failed", failures.join("; "))
  release(audio)
  showNotice(`Could not play ${entry.track.title}: skipped`)
  failuresInARow += 1
  if (failuresInARow >= queue.value.length) {
    failuresInARow = 0
    playing.value = false
    return
  }
  const following = upNext()
  if (!resume && following !== undefined) return load(following, false)
  advance(1, false)
}

/** No progress for this long while meant to play (not paused, not at the end) is a stall. */
const STALL_SECONDS = 10
let stallWatch: { element: HTMLAudioElement; time: number; src: string; since: number } | undefined
setInterval(() => {
  const entry = loaded.get(audio)
  if (entry === undefined || audio.paused || audio.ended || duration.value - trackTime() < 1) {
    stallWatch = undefined
    return
  }
  const now = Date.now()
  const watch = stallWatch
  if (watch === undefined || watch.element !== audio || watch.src !== audio.src || watch.time !== audio.currentTime) {
    stallWatch = { element: audio, time: audio.currentTime, src: audio.src, since: now }
    return
  }
  if (now - watch.since < STALL_SECONDS * 1000) return
  stallWatch = undefined
  trackFailed("stalled", `no progress for ${STALL_SECONDS} s at ${Math.floor(trackTime())} s`)
}, 1000)

// ---- gapless and crossfade ---------------------------------------------------------------------------------------

/** The queue entry that plays after the current one by itself, if any. */
const upNext = (): number | undefined => {
  if (repeat.value === "one") return undefined
  const following = index.value + 1
  if (following < queue.value.length) return following
  return repeat.value === "all" && queue.value.length > 0 ? 0 : undefined
}

/** The next track is loaded into the standby this long before the current one ends (and earlier for a fade). */
const PRELOAD_SECONDS = 30

const preloadNext = () => {
  if (fade !== undefined) return
  const at = upNext()
  const track = at === undefined ? undefined : queue.value[at]
  if (track === undefined || holds(standby, track) || track.id === current.value?.id) return
  if (duration.value - trackTime() > Math.max(PRELOAD_SECONDS, crossfade.value + 10)) return
  setSource(standby, { track, choice: firstChoice(track.file_format, canPlay), offset: 0, failures: [] })
}

/** Starts the fade into the next track once the current one is within its crossfade of the end. */
const maybeCrossfade = () => {
  const from = current.value
  const at = upNext()
  if (fade !== undefined || from === undefined || at === undefined) return
  const to = queue.value[at]
  const seconds = crossfadeSeconds(crossfade.value, from, to)
  const remaining = duration.value - trackTime()
  if (to === undefined || seconds <= 0 || remaining > seconds) return
  // Not buffered yet: no fade, the track change at the end stays gapless.
  if (!holds(standby, to) || standby.readyState < HTMLMediaElement.HAVE_FUTURE_DATA) return
  const outgoing = audio
  const outLevel = outgoing.volume
  if (open !== undefined) open.lastTime = trackTime()
  closePlay("ended")
  load(at, true, true)
  audio.volume = 0
  const started = performance.now()
  const length = Math.max(remaining, 0.5) * 1000
  const timer = setInterval(() => {
    const progress = (performance.now() - started) / length
    const levels = fadeLevels(progress)
    outgoing.volume = outLevel * levels.out
    audio.volume = targetVolume() * levels.in
    if (progress >= 1) stopFade()
  }, 50)
  fade = { outgoing, timer }
}

/**
 * Asks the active track's transcode again from `at` (a dropped stream), keeping the position shown and the open
 * play. Paused (`resume` false), the new stream is fetched only when play is pressed: no transcode held meanwhile.
 */
const reask = (entry: Loaded, at: number, resume: boolean) => {
  setSource(audio, { ...entry, offset: at, reaskedAt: at }, !resume)
  stallWatch = undefined
  if (open !== undefined) open.lastTime = at
  position.value = at
  if (resume) void audio.play().catch(() => undefined)
}

/** The active track played to its end: report it, then repeat it or go on. */
const endActive = () => {
  if (open !== undefined) open.lastTime = trackTime()
  closePlay("ended")
  if (repeat.value === "one") {
    if (loaded.get(audio)?.choice === "original") {
      audio.currentTime = 0
      void audio.play().catch(() => undefined)
    } else load(index.value)
    return
  }
  advance(1, false)
}

const listen = (element: HTMLAudioElement) => {
  element.addEventListener("playing", () => {
    if (element !== audio) return
    failuresInARow = 0
    playing.value = true
    const track = current.value
    if (track !== undefined && open === undefined) {
      open = {
        track,
        source: source.value,
        startedAt: new Date().toISOString(),
        listenedMs: 0,
        lastTime: trackTime(),
      }
      reportStart(open)
    }
  })
  element.addEventListener("play", () => {
    if (element === audio) meantToPlay = true
  })
  element.addEventListener("pause", () => {
    if (element !== audio) return
    if (element.error === null) meantToPlay = false
    playing.value = false
    // Pausing during a fade ends the outgoing track too.
    stopFade()
  })
  element.addEventListener("timeupdate", () => {
    if (element !== audio) return
    const time = trackTime()
    position.value = time
    if ("mediaSession" in navigator && duration.value > 0) {
      try {
        navigator.mediaSession.setPositionState({
          duration: duration.value,
          position: Math.min(time, duration.value),
          playbackRate: audio.playbackRate || 1,
        })
      } catch {
        // A browser without position state.
      }
    }
    if (open !== undefined) {
      // Only steady playback counts as listening: a seek is a jump (playReport.ts).
      open.listenedMs += listenedBetween(open.lastTime, time)
      open.lastTime = time
    }
    preloadNext()
    maybeCrossfade()
  })
  element.addEventListener("seeking", () => {
    if (element === audio && open !== undefined) open.lastTime = trackTime()
  })
  element.addEventListener("loadedmetadata", () => {
    if (element !== audio) return
    const entry = loaded.get(element)
    if (element.duration === 0) trackFailed("zero_duration", "the stream has a duration of 0 s")
    // A transcode's length is unknown to the element (no Content-Length): the scan's duration stays.
    else if (entry?.choice === "original" && Number.isFinite(element.duration) && element.duration > 0)
      duration.value = element.duration
  })
  element.addEventListener("ended", () => {
    // Not the active one, or given a new stream (a fallback) since the event was queued.
    if (element !== audio || !element.ended) return
    // A transcode whose connection was cut ends early (what the browser had, then nothing): asked again from there.
    const entry = loaded.get(audio)
    const drop =
      entry === undefined
        ? undefined
        : recoverDrop({
            choice: entry.choice,
            delivered: true,
            position: trackTime(),
            duration: duration.value,
            reaskedAt: entry.reaskedAt,
            ended: true,
          })
    if (entry !== undefined && drop?._tag === "reask") return reask(entry, drop.at, true)
    endActive()
  })
  element.addEventListener("error", () => {
    const error = element.error
    if (error === null || error.code === MediaError.MEDIA_ERR_ABORTED) return
    // A preload that fails is dropped: the track meets the same failure, and its fallback, when its turn comes.
    if (element !== audio) return release(element)
    const why = `${MEDIA_ERRORS[error.code] ?? `error ${error.code}`}${error.message === "" ? "" : ` (${error.message})`}`
    trackFailed("load_failed", why)
  })
}
listen(audio)
listen(standby)

// ---- cast (cast.ts): while a speaker plays, the transport drives it instead of the audio elements ----------------

/** A network speaker playing the queue (cast.ts registers one while casting). */
export interface RemoteOutput {
  readonly load: (at: number) => void
  readonly toggle: () => void
  readonly seek: (seconds: number) => void
  readonly setVolume: (value: number) => void
}
let remote: RemoteOutput | undefined
export const setRemoteOutput = (output: RemoteOutput | undefined) => {
  remote = output
}

/**
 * Plays queue entry `at`: from the standby when it preloaded that track (gapless), else from a new stream.
 * `fading`: the previous element keeps playing (a crossfade releases it when the fade ends).
 */
const load = (at: number, autoplay = true, fading = false) => {
  const track = queue.value[at]
  if (track === undefined) return
  if (remote !== undefined) return remote.load(at) // cast
  closePlay("left")
  stopFade()
  if (holds(standby, track)) {
    const previous = audio
    activate(standby)
    if (!fading) release(previous)
  } else {
    release(standby)
    setSource(audio, { track, choice: firstChoice(track.file_format, canPlay), offset: 0, failures: [] })
  }
  stallWatch = undefined
  batch(() => {
    index.value = at
    position.value = 0
    duration.value = track.duration_ms / 1000
  })
  audio.volume = targetVolume()
  updateMediaSession(track)
  meantToPlay = autoplay
  if (autoplay) void audio.play().catch(() => undefined)
}

/**
 * Moves the active track to `target` seconds. A transcode has no Range: outside what is buffered it is asked
 * again from there (`timeOffset`), which the position then counts from.
 */
const seekActive = (target: number) => {
  const entry = loaded.get(audio)
  const local = target - (entry?.offset ?? 0)
  const buffered = Array.from({ length: audio.buffered.length }, (_, at) => at).some(
    (at) => audio.buffered.start(at) <= local && local <= audio.buffered.end(at),
  )
  if (entry === undefined || entry.choice === "original" || buffered) {
    audio.currentTime = Math.max(0, local)
    return
  }
  const wasPlaying = !audio.paused
  setSource(audio, { ...entry, offset: target, reaskedAt: undefined })
  if (open !== undefined) open.lastTime = target
  if (wasPlaying) void audio.play().catch(() => undefined)
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

/**
 * Puts a saved queue back without playing it (a reload, another device's queue): the player shows entry `at` at
 * `positionSeconds`, and Play resumes there.
 */
export const restoreQueue = (
  tracks: ReadonlyArray<Track>,
  at: number,
  positionSeconds: number,
  restoredSource: string | undefined,
) => {
  if (tracks.length === 0) return
  closePlay("left")
  batch(() => {
    unshuffled = undefined
    shuffle.value = false
    queue.value = tracks
    source.value = restoredSource
  })
  load(Math.min(Math.max(at, 0), tracks.length - 1), false)
  if (positionSeconds > 0) seek(positionSeconds)
}

export const playIndex = (at: number) => load(at)
export const next = () => advance(1, true)
export const previous = () => {
  if ((remote !== undefined ? position.value : trackTime()) > 3 || index.value <= 0) {
    seek(0)
    return
  }
  advance(-1, true)
}
export const togglePlay = () => {
  if (current.value === undefined) return
  if (remote !== undefined) return remote.toggle() // cast
  if (audio.paused) void audio.play().catch(() => undefined)
  else audio.pause()
}
export const seek = (seconds: number) => {
  if (current.value === undefined) return
  const target = Math.max(0, Math.min(seconds, duration.value || audio.duration || 0))
  if (remote !== undefined) {
    // cast
    position.value = target
    return remote.seek(target)
  }
  seekActive(target)
  position.value = target
}
export const seekBy = (delta: number) => seek(trackTime() + delta)
export const setVolume = (value: number) => {
  const clamped = Math.max(0, Math.min(1, value))
  volume.value = clamped
  localStorage.setItem("tonearm.volume", String(clamped))
  remote?.setVolume(clamped) // cast
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
  stopFade()
  release(audio)
  release(standby)
  batch(() => {
    queue.value = []
    index.value = -1
    playing.value = false
  })
}
