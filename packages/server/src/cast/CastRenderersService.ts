import {
  AV_TRANSPORT,
  CastRenderer,
  CastRenderers,
  CastStatus,
  didlLite,
  formatUpnpTime,
  InvalidTrackId,
  NotFound,
  parseUpnpTime,
  RENDERING_CONTROL,
  type RendererDescription,
  RendererError,
  TrackId,
  trackIdOfStreamUrl,
  type UserId,
} from "@tonearm/core"
import { Effect, Fiber, FiberMap, Schedule, Schema } from "effect"
import { castSettingsOf, TonearmConfig } from "../config/TonearmConfig.js"
import { DiagnosticsService } from "../diagnostics/index.js"
import { LibraryService } from "../library/index.js"
import { CastService } from "../streaming/index.js"
import { RendererClient } from "./RendererClient.js"
import { runSsdpDiscovery } from "./SsdpDiscovery.js"

interface KnownRenderer extends RendererDescription {
  readonly descriptionUrl: string
  readonly source: "discovered" | "configured"
}

/** What the server remembers of a cast it started, to tell a finished track from a drop and to follow "next". */
interface Session {
  trackId: string
  nextTrackId: string | null
  lastState: string
  lastPositionMs: number | null
  durationMs: number | null
  /** The last call found the speaker unreachable: the next answer is a resync. */
  lost: boolean
}

/** Playing states a renderer may report while it has our track. */
const ACTIVE = new Set(["PLAYING", "TRANSITIONING"])
const IDLE = new Set(["STOPPED", "NO_MEDIA_PRESENT"])
/** A stop this close to the end is the track finishing, not a drop. */
const END_SLACK_MS = 5_000

const isTrackId = Schema.is(TrackId)
/** The longest a renderer list waits for configured speakers that have not answered yet. */
const LIST_WAIT = "1500 millis"
/**
 * How long a cast keeps trying to start at the listener's position: a speaker on slow Wi-Fi, or a busy server,
 * can take many seconds to buffer the stream, and a seek before that is lost.
 */
const START_SEEK_WINDOW_MS = 30_000

/**
 * Network speakers (UPnP/DLNA MediaRenderers, issue 25 item 8). Renderers are known from SSDP or from
 * TONEARM_UPNP_RENDERERS, never from a request: a route names a renderer by id, and only a known renderer's own
 * control URLs are ever called. State lives in this replica's memory (the speaker itself holds the truth, and
 * every status call reads it back). A speaker is shared by the household: any signed-in user may drive it.
 */
export class CastRenderersService extends Effect.Service<CastRenderersService>()(
  "@tonearm/server/CastRenderersService",
  {
    scoped: Effect.gen(function* () {
      const settings = castSettingsOf(yield* TonearmConfig)
      const client = yield* RendererClient
      const tokens = yield* CastService
      const library = yield* LibraryService
      const diagnostics = yield* DiagnosticsService

      const renderers = new Map<string, KnownRenderer>()
      const sessions = new Map<string, Session>()
      /** The start-at-position seek of each renderer's current cast; a new command for that speaker ends it. */
      const startSeeks = yield* FiberMap.make<string>()

      const register = (descriptionUrl: string, source: KnownRenderer["source"]) =>
        client.describe(descriptionUrl).pipe(
          Effect.tap((description) =>
            Effect.sync(() => {
              // A configured renderer stays configured when SSDP also finds it.
              const known = renderers.get(description.id)
              renderers.set(description.id, {
                ...description,
                descriptionUrl,
                source: known?.source === "configured" ? "configured" : source,
              })
            }),
          ),
        )

      /** Configured renderers not described yet (it was off, or the server started first) are tried again. */
      const refreshConfigured = Effect.forEach(
        settings.rendererUrls.filter((url) => ![...renderers.values()].some((known) => known.descriptionUrl === url)),
        (url) =>
          register(url, "configured").pipe(
            Effect.catchAll((error) => Effect.logInfo(`configured renderer ${url}: ${error.message}`)),
          ),
        { concurrency: "unbounded", discard: true },
      )

      yield* Effect.forkScoped(refreshConfigured)
      if (settings.discovery) {
        yield* Effect.forkScoped(
          runSsdpDiscovery({
            found: (url) =>
              register(url, "discovered").pipe(
                Effect.catchAll((error) => Effect.logDebug(`SSDP renderer ${url}: ${error.message}`)),
              ),
            gone: (uuid) =>
              Effect.sync(() => {
                if (renderers.get(uuid)?.source === "discovered") renderers.delete(uuid)
              }),
          }),
        )
      }

      const scope = yield* Effect.scope
      const list = Effect.gen(function* () {
        // A configured speaker that is off must not hold the list: the refresh goes on, the answer does not wait.
        const refresh = yield* Effect.forkIn(refreshConfigured, scope)
        yield* Fiber.join(refresh).pipe(Effect.timeout(LIST_WAIT), Effect.ignore)
        const items = [...renderers.values()]
          .map((known) => new CastRenderer({ id: known.id, name: known.name, source: known.source }))
          .sort((a, b) => a.name.localeCompare(b.name))
        return new CastRenderers({ items })
      }).pipe(Effect.withSpan("CastRenderersService.list"))

      const renderer = (id: string) =>
        Effect.gen(function* () {
          const key = id.toLowerCase()
          if (!renderers.has(key)) yield* refreshConfigured
          const known = renderers.get(key)
          if (known === undefined) return yield* new NotFound({ message: "no such renderer", resource: "renderer" })
          return known
        })

      /** `upnp_sync` for the caller (stored only in their debug mode); a diagnostic never fails the call. */
      const recordSync = (user: UserId, known: KnownRenderer, data: Record<string, unknown>) =>
        diagnostics
          .report(user, {
            events: [{ kind: "upnp_sync", device_id: `upnp:${known.id}`, data: { renderer: known.name, ...data } }],
          })
          .pipe(Effect.ignoreLogged)

      const avTransport = (known: KnownRenderer, action: string, args: ReadonlyArray<readonly [string, string]> = []) =>
        client.soap(known.avTransportUrl, AV_TRANSPORT, action, [["InstanceID", "0"], ...args])

      const renderingControl = (
        known: KnownRenderer,
        action: string,
        args: ReadonlyArray<readonly [string, string]>,
      ) =>
        known.renderingControlUrl === undefined
          ? Effect.fail(new RendererError({ message: `${known.name} has no volume control (RenderingControl)` }))
          : client.soap(known.renderingControlUrl, RENDERING_CONTROL, action, [
              ["InstanceID", "0"],
              ["Channel", "Master"],
              ...args,
            ])

      /** A call that finds the speaker gone marks the session lost and records the drop once. */
      const guarded = <A, E extends { readonly _tag: string }, R>(
        user: UserId,
        known: KnownRenderer,
        call: Effect.Effect<A, E, R>,
      ) =>
        call.pipe(
          Effect.tapError((error) =>
            Effect.gen(function* () {
              const session = sessions.get(known.id)
              if (error._tag !== "RendererUnreachable" || session === undefined || session.lost) return
              session.lost = true
              yield* recordSync(user, known, { event: "drop", reason: "unreachable", track_id: session.trackId })
            }),
          ),
        )

      const trackOf = (id: string) =>
        Effect.gen(function* () {
          if (!isTrackId(id)) return yield* new InvalidTrackId({ message: "track_id must be a UUID" })
          const [track] = yield* library.tracksByIds([id])
          if (track === undefined) return yield* new NotFound({ message: "no such track", resource: "track" })
          return track
        })

      /** The URI and DIDL-Lite metadata of a track, with a signed stream URL a speaker can fetch without a session. */
      const media = (id: string, origin: { readonly scheme: string; readonly host: string }) =>
        Effect.gen(function* () {
          const track = yield* trackOf(id)
          const token = yield* tokens.streamToken({ trackId: id, expSeconds: undefined, origin })
          const metadata = didlLite({
            id: track.id,
            title: track.title,
            artist: track.artist_name,
            album: track.album_title,
            durationMs: track.duration_ms,
            url: token.url,
            mime: token.mime,
          })
          return { url: token.url, metadata }
        })

      /** Reads the speaker back, and keeps the session in step with it (next track taken, drop, resync). */
      const readStatus = (user: UserId, known: KnownRenderer) =>
        Effect.gen(function* () {
          const transport = yield* avTransport(known, "GetTransportInfo")
          const position = yield* avTransport(known, "GetPositionInfo")
          const volume = yield* renderingControl(known, "GetVolume", []).pipe(
            Effect.map((answer) => answer("CurrentVolume")),
            Effect.catchTag("RendererError", () => Effect.succeed(undefined)),
          )
          const state = transport("CurrentTransportState") ?? "UNKNOWN"
          const uri = position("TrackURI")
          const uriTrack = trackIdOfStreamUrl(uri)
          const positionMs = parseUpnpTime(position("RelTime")) ?? null
          const durationMs = parseUpnpTime(position("TrackDuration")) ?? null
          const session = sessions.get(known.id)
          if (session !== undefined) {
            if (session.lost) {
              session.lost = false
              yield* recordSync(user, known, { event: "resync", reason: "answering_again", state })
            }
            if (uriTrack !== undefined && uriTrack === session.nextTrackId) {
              // The speaker moved on to the track queued with SetNextAVTransportURI.
              session.trackId = uriTrack
              session.nextTrackId = null
            } else if (uriTrack !== undefined && uriTrack !== session.trackId) {
              yield* recordSync(user, known, {
                event: "resync",
                reason: "track_changed",
                from: session.trackId,
                to: uriTrack,
              })
              session.trackId = uriTrack
              session.nextTrackId = null
            } else if (uri !== undefined && uri !== "" && uriTrack === undefined) {
              yield* recordSync(user, known, { event: "drop", reason: "taken_over", track_id: session.trackId })
              sessions.delete(known.id)
            }
            const stoppedEarly =
              IDLE.has(state) &&
              ACTIVE.has(session.lastState) &&
              session.lastPositionMs !== null &&
              session.durationMs !== null &&
              session.lastPositionMs < session.durationMs - END_SLACK_MS
            if (stoppedEarly) {
              yield* recordSync(user, known, {
                event: "drop",
                reason: "stopped_mid_track",
                track_id: session.trackId,
                position_ms: session.lastPositionMs,
              })
            }
            session.lastState = state
            if (positionMs !== null && ACTIVE.has(state)) session.lastPositionMs = positionMs
            if (durationMs !== null) session.durationMs = durationMs
          }
          const current = sessions.get(known.id)
          const parsedVolume = volume === undefined ? Number.NaN : Number.parseInt(volume, 10)
          return new CastStatus({
            renderer_id: known.id,
            state,
            track_id: uriTrack ?? current?.trackId ?? null,
            position_ms: positionMs,
            duration_ms: durationMs,
            volume: Number.isFinite(parsedVolume) ? Math.max(0, Math.min(100, parsedVolume)) : null,
            next_track_id: current?.nextTrackId ?? null,
          })
        })

      /**
       * A seek at the start of a track, repeated until the speaker's position shows it: a speaker answers a seek
       * sent before its pipeline holds the stream with OK and then loses it (gmediarender does).
       */
      const seekWhenLoaded = (known: KnownRenderer, positionMs: number) =>
        seekTo(known, positionMs).pipe(
          Effect.zipRight(Effect.sleep("150 millis")),
          Effect.zipRight(avTransport(known, "GetPositionInfo")),
          Effect.map((position) => (parseUpnpTime(position("RelTime")) ?? 0) >= positionMs - 1_000),
          // A refused or dropped attempt is one more try, not the end of the cast.
          Effect.orElseSucceed(() => false),
          Effect.repeat({ until: (landed) => landed, schedule: Schedule.spaced("100 millis") }),
          Effect.timeout(Math.max(settings.timeoutMs, START_SEEK_WINDOW_MS)),
          Effect.ignore,
        )

      const seekTo = (known: KnownRenderer, positionMs: number) =>
        avTransport(known, "Seek", [
          ["Unit", "REL_TIME"],
          ["Target", formatUpnpTime(positionMs)],
        ])

      const play = Effect.fn("CastRenderersService.play")(function* (
        user: UserId,
        id: string,
        input: { readonly track_id: string; readonly position_ms?: number; readonly next_track_id?: string },
        origin: { readonly scheme: string; readonly host: string },
      ) {
        const known = yield* renderer(id)
        const current = yield* media(input.track_id, origin)
        const next = input.next_track_id === undefined ? undefined : yield* media(input.next_track_id, origin)
        yield* guarded(
          user,
          known,
          Effect.gen(function* () {
            // Some speakers refuse a new URI while playing; a refused Stop (nothing loaded) is fine.
            yield* avTransport(known, "Stop").pipe(Effect.catchTag("RendererError", () => Effect.void))
            yield* avTransport(known, "SetAVTransportURI", [
              ["CurrentURI", current.url],
              ["CurrentURIMetaData", current.metadata],
            ])
            sessions.set(known.id, {
              trackId: input.track_id.toLowerCase(),
              nextTrackId: null,
              lastState: "TRANSITIONING",
              lastPositionMs: null,
              durationMs: null,
              lost: false,
            })
            yield* avTransport(known, "Play", [["Speed", "1"]])
            // The answer waits for the seek as long as for any speaker call; a speaker slower to buffer gets
            // the seek in the background, and status shows the jump.
            if (input.position_ms !== undefined && input.position_ms >= 1000) {
              const seeking = yield* FiberMap.run(startSeeks, known.id, seekWhenLoaded(known, input.position_ms))
              yield* Fiber.await(seeking).pipe(Effect.timeout(settings.timeoutMs), Effect.ignore)
            } else {
              yield* FiberMap.remove(startSeeks, known.id)
            }
            if (next !== undefined) yield* queueNext(known, input.next_track_id!, next)
          }),
        )
        return yield* guarded(user, known, readStatus(user, known))
      })

      /** SetNextAVTransportURI where the speaker has it (optional in AVTransport:1): gapless on the speaker. */
      const queueNext = (known: KnownRenderer, trackId: string, next: { url: string; metadata: string }) =>
        avTransport(known, "SetNextAVTransportURI", [
          ["NextURI", next.url],
          ["NextURIMetaData", next.metadata],
        ]).pipe(
          Effect.tap(() =>
            Effect.sync(() => {
              const session = sessions.get(known.id)
              if (session !== undefined) session.nextTrackId = trackId.toLowerCase()
            }),
          ),
          Effect.catchTag("RendererError", () => Effect.void),
        )

      const act = <E extends { readonly _tag: string }>(
        name: string,
        action: (known: KnownRenderer) => Effect.Effect<unknown, E>,
      ) =>
        Effect.fn(`CastRenderersService.${name}`)(function* (user: UserId, id: string) {
          const known = yield* renderer(id)
          yield* guarded(user, known, action(known))
          return yield* guarded(user, known, readStatus(user, known))
        })

      const pause = act("pause", (known) => avTransport(known, "Pause"))
      const resume = act("resume", (known) => avTransport(known, "Play", [["Speed", "1"]]))
      const stop = act("stop", (known) =>
        FiberMap.remove(startSeeks, known.id).pipe(
          Effect.zipRight(Effect.sync(() => sessions.delete(known.id))),
          Effect.zipRight(avTransport(known, "Stop")),
        ),
      )

      const seek = Effect.fn("CastRenderersService.seek")(function* (user: UserId, id: string, positionMs: number) {
        const known = yield* renderer(id)
        yield* FiberMap.remove(startSeeks, known.id)
        yield* guarded(user, known, seekTo(known, positionMs))
        return yield* guarded(user, known, readStatus(user, known))
      })

      const setVolume = Effect.fn("CastRenderersService.setVolume")(function* (
        user: UserId,
        id: string,
        volume: number,
      ) {
        const known = yield* renderer(id)
        yield* guarded(user, known, renderingControl(known, "SetVolume", [["DesiredVolume", String(volume)]]))
        return yield* guarded(user, known, readStatus(user, known))
      })

      const status = Effect.fn("CastRenderersService.status")(function* (user: UserId, id: string) {
        const known = yield* renderer(id)
        return yield* guarded(user, known, readStatus(user, known))
      })

      return { list, play, pause, resume, stop, seek, setVolume, status } as const
    }),
    // The diagnostics layer is the one ServicesLive builds (layers are shared by reference).
    dependencies: [RendererClient.Default, DiagnosticsService.Default],
  },
) {}
