import { HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import {
  Conflict,
  InvalidToken,
  isScrobbleProvider,
  LastfmSession,
  lastfmSessionParams,
  lastfmTrackParams,
  listenBrainzBody,
  maskSecret,
  NotFound,
  readLastfmAnswer,
  readListenBrainzAnswer,
  SCROBBLE_PROVIDERS,
  type ScrobbleKind,
  type ScrobbleOutcome,
  type ScrobbleProvider,
  ScrobblerSettings,
  ScrobblerStatus,
  type ScrobblerUpdate,
  type ScrobbleTrack,
  ServiceUnavailable,
  scrobbleRetryDelayMs,
  signLastfm,
  type UserId,
} from "@tonearm/core"
import { DateTime, Deferred, Duration, Effect, Either, Option, Redacted, Ref, Schema } from "effect"
import { currentDate } from "../clock.js"
import { enrichmentSettingsOf, scrobblingSettingsOf, TonearmConfig } from "../config/TonearmConfig.js"
import { orInternal } from "../db/sqlErrors.js"
import { ProviderHttp } from "../enrichment/index.js"
import { Leases } from "../leases/index.js"
import { SERVER_VERSION } from "../version.js"
import { type ClaimedRow, ScrobbleRepository, type ScrobblerRow } from "./ScrobbleRepository.js"

/**
 * How long a claimed submission is reserved for the sender that took it. Only a sender that died mid-send (a killed
 * process) leaves a row leased; it is due again after this.
 */
const LEASE_MS = 2 * 60_000

const utc = (date: Date | null) => (date === null ? null : DateTime.unsafeFromDate(date))

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A message about a secret-bearing exchange, with the secret cut out should a provider ever echo it. */
const withoutSecret = (message: string, secret: string) =>
  secret.length >= 4 ? message.split(secret).join("…") : message

/**
 * Scrobbling out (issue 26): each listener's ListenBrainz and Last.fm settings, the durable queue the play path fills
 * (`enqueue`, in the play's own transaction) and the sender that drains it. One sender fiber per provider per
 * replica claims one due row at a time (any replica may run one: rows are claimed with SKIP LOCKED), sends it through
 * the provider throttle, and records what became of it: sent; retried later with doubling delays; the listener's
 * token refused (sending stops for them until a new one is given, the queue is kept); or dropped for good.
 */
/** The lease under which one replica sends a provider's scrobbles (`scrobble-sender:listenbrainz`). */
export const scrobbleLeaseOf = (provider: string): string => `scrobble-sender:${provider}`

export class ScrobblingService extends Effect.Service<ScrobblingService>()("@tonearm/server/ScrobblingService", {
  scoped: Effect.gen(function* () {
    const rows = yield* ScrobbleRepository
    const http = yield* ProviderHttp
    const config = yield* TonearmConfig
    const sql = yield* SqlClient.SqlClient
    const settings = scrobblingSettingsOf(config)
    const leases = yield* Leases
    const providers = enrichmentSettingsOf(config)

    const lastfmCredentials = () => {
      const apiKey = providers.lastfm.apiKey
      const secret = settings.lastfmSharedSecret
      return apiKey === null || apiKey === "" || secret === null || Redacted.value(secret) === ""
        ? undefined
        : { apiKey, secret: Redacted.value(secret) }
    }

    // --- wake-ups: a queued play starts the senders at once (the poll is the fallback) ---

    const signal = yield* Ref.make(yield* Deferred.make<void>())
    const wake = Effect.gen(function* () {
      const current = yield* Ref.getAndSet(signal, yield* Deferred.make<void>())
      yield* Deferred.succeed(current, undefined)
    })

    // --- settings ---

    const providerOf = (name: string) =>
      isScrobbleProvider(name)
        ? Effect.succeed(name)
        : Effect.fail(
            new NotFound({
              message: `no scrobbler ${JSON.stringify(name)}; use ${SCROBBLE_PROVIDERS.join(" or ")}`,
              resource: "scrobbler",
            }),
          )

    const viewOf = (userId: UserId, provider: ScrobbleProvider) =>
      Effect.gen(function* () {
        const [stored, counts] = yield* Effect.all([rows.settingsOf(userId, provider), rows.countsOf(userId, provider)])
        const row: ScrobblerRow | undefined = Option.getOrUndefined(stored)
        const credentials = lastfmCredentials()
        const available = provider === "listenbrainz" || credentials !== undefined
        return new ScrobblerSettings({
          provider,
          enabled: row?.enabled ?? false,
          token: row?.token == null ? null : maskSecret(row.token),
          token_set: row?.token != null,
          account: row?.account ?? null,
          available,
          auth_url:
            provider === "lastfm" && credentials !== undefined
              ? `${settings.lastfmAuthUrl}?api_key=${encodeURIComponent(credentials.apiKey)}`
              : null,
          status: new ScrobblerStatus({
            queued: counts.queued,
            sent: counts.sent,
            last_sent_at: utc(row?.last_sent_at ?? null),
            last_error: row?.last_error ?? null,
            last_error_at: utc(row?.last_error_at ?? null),
            needs_auth: row?.auth_error != null,
          }),
        })
      })

    const get = Effect.fn("ScrobblingService.get")(function* (userId: UserId, name: string) {
      return yield* viewOf(userId, yield* providerOf(name))
    })

    /** Switching off drops what is still queued for that provider in the same transaction: it stops at once. */
    const update = Effect.fn("ScrobblingService.update")(function* (
      userId: UserId,
      name: string,
      body: ScrobblerUpdate,
    ) {
      const provider = yield* providerOf(name)
      const token =
        body.token === undefined
          ? undefined
          : { value: body.token === null || body.token === "" ? null : body.token, account: null }
      const now = yield* currentDate
      yield* Effect.all([
        rows.save(userId, provider, { enabled: body.enabled, token }, now),
        body.enabled === false ? rows.cancelPending(userId, provider) : Effect.void,
      ]).pipe(sql.withTransaction, orInternal("ScrobblingService.update"))
      yield* wake
      return yield* viewOf(userId, provider)
    })

    /**
     * Last.fm's web auth hands the callback a token; `auth.getSession` (signed) turns it into the session key that
     * scrobbles, which is stored with the account name, and Last.fm scrobbling is switched on.
     */
    const connectLastfm = Effect.fn("ScrobblingService.connectLastfm")(function* (userId: UserId, token: string) {
      const credentials = lastfmCredentials()
      if (credentials === undefined)
        // The server's own setup, not an outage: 409, which no retry fixes (issue 29: no 5xx from any input).
        return yield* new Conflict({
          message:
            "Last.fm scrobbling is not configured on this server (TONEARM_LASTFM_API_KEY and TONEARM_LASTFM_SHARED_SECRET)",
          reason: "not_configured",
        })
      const request = HttpClientRequest.post(`${providers.lastfm.baseUrl}/2.0/`).pipe(
        HttpClientRequest.bodyUrlParams(signLastfm(lastfmSessionParams(token, credentials.apiKey), credentials.secret)),
      )
      const answer = yield* Effect.either(http.exchange("lastfm", request))
      if (Either.isLeft(answer))
        return yield* new ServiceUnavailable({ message: `Last.fm could not be reached: ${answer.left.message}` })
      const body = parseJson(answer.right.text)
      const outcome = readLastfmAnswer(answer.right.status, body)
      const session = Schema.decodeUnknownOption(LastfmSession)(body)
      if (outcome._tag === "retry")
        return yield* new ServiceUnavailable({ message: withoutSecret(outcome.message, token) })
      if (outcome._tag !== "sent" || Option.isNone(session))
        return yield* new InvalidToken({
          message: `Last.fm did not accept this token${outcome._tag === "sent" ? "" : ` (${withoutSecret(outcome.message, token)})`}; connect again`,
        })
      const now = yield* currentDate
      yield* rows
        .save(
          userId,
          "lastfm",
          { enabled: true, token: { value: session.value.session.key, account: session.value.session.name } },
          now,
        )
        .pipe(sql.withTransaction, orInternal("ScrobblingService.connectLastfm"))
      yield* wake
      return yield* viewOf(userId, "lastfm")
    })

    /**
     * Called by the play path inside the play's transaction: queues the play for each provider the listener sends to.
     * The caller decides what qualifies (a completed non-skip play for `listen`; a live start for `now_playing`).
     */
    const enqueue = (
      userId: UserId,
      playEventId: string,
      kind: ScrobbleKind,
      now: Date,
      expiresAt: Date | null = null,
    ) => rows.enqueue(userId, playEventId, kind, now, expiresAt)

    // --- the sender ---

    const trackOf = (row: ClaimedRow): ScrobbleTrack | undefined =>
      row.title === null || row.artist === null || row.started_at === null || row.duration_ms === null
        ? undefined
        : {
            artist: row.artist,
            title: row.title,
            album: row.album,
            album_artist: row.album_artist,
            track_number: row.track_number,
            duration_ms: row.duration_ms,
            recording_mbid: row.recording_mbid,
            release_mbid: row.release_mbid,
            started_at_ms: row.started_at.getTime(),
          }

    const unreachable = (message: string): ScrobbleOutcome => ({ _tag: "retry", message })

    const submit = (provider: ScrobbleProvider, kind: ScrobbleKind, track: ScrobbleTrack, token: string) =>
      Effect.gen(function* () {
        if (provider === "listenbrainz") {
          const request = HttpClientRequest.post(`${providers.listenbrainz.baseUrl}/1/submit-listens`).pipe(
            HttpClientRequest.setHeader("authorization", `Token ${token}`),
            HttpClientRequest.bodyUnsafeJson(listenBrainzBody(kind, track, { version: SERVER_VERSION })),
          )
          const answer = yield* Effect.either(http.exchange("listenbrainz", request))
          return Either.isLeft(answer)
            ? unreachable(`ListenBrainz could not be reached: ${answer.left.message}`)
            : readListenBrainzAnswer(answer.right.status, parseJson(answer.right.text), answer.right.headers)
        }
        const credentials = lastfmCredentials()
        if (credentials === undefined) return unreachable("Last.fm scrobbling is not configured on this server")
        const params = signLastfm(
          lastfmTrackParams(kind, track, { apiKey: credentials.apiKey, sessionKey: token }),
          credentials.secret,
        )
        const request = HttpClientRequest.post(`${providers.lastfm.baseUrl}/2.0/`).pipe(
          HttpClientRequest.bodyUrlParams(params),
        )
        const answer = yield* Effect.either(http.exchange("lastfm", request))
        return Either.isLeft(answer)
          ? unreachable(`Last.fm could not be reached: ${answer.left.message}`)
          : readLastfmAnswer(answer.right.status, parseJson(answer.right.text))
      })

    /**
     * Sends the oldest due submission of a provider, if any. Answers whether there was one, and whether the provider
     * seems down (the sender then pauses that provider instead of failing through the whole backlog).
     */
    const sendOne = (provider: ScrobbleProvider) =>
      Effect.gen(function* () {
        const now = yield* currentDate
        const claimed = yield* rows.claim(provider, now, new Date(now.getTime() + LEASE_MS))
        if (Option.isNone(claimed)) return { sent: false, down: false }
        const row = claimed.value
        const settle = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          effect.pipe(sql.withTransaction, orInternal("ScrobblingService.settle"))
        const expired = row.expires_at !== null && row.expires_at.getTime() <= now.getTime()
        if (row.kind === "now_playing" && expired) {
          yield* rows.discard(row.id)
          return { sent: true, down: false }
        }
        const track = trackOf(row)
        if (track === undefined || row.token === null) {
          yield* settle(rows.markRejected(row.id, row.user_id, provider, null, now))
          return { sent: true, down: false }
        }
        // A play since marked skipped, or an imported one, never leaves (belt and braces: neither is ever queued).
        if (row.kind === "listen" && (row.skipped === true || row.client_id === "import")) {
          yield* settle(rows.markRejected(row.id, row.user_id, provider, null, now))
          return { sent: true, down: false }
        }
        const outcome = yield* submit(provider, row.kind, track, row.token)
        const after = yield* currentDate
        const message = outcome._tag === "sent" ? "" : withoutSecret(outcome.message, row.token)
        switch (outcome._tag) {
          case "sent":
            yield* settle(rows.markSent(row.id, row.user_id, provider, row.kind, after))
            return { sent: true, down: false }
          case "auth":
            yield* settle(
              Effect.all([
                rows.markAuthFailed(row.id, row.user_id, provider, message, after),
                row.kind === "now_playing" ? rows.discard(row.id) : Effect.void,
              ]),
            )
            yield* Effect.logWarning(`scrobbling to ${provider} stopped for user ${row.user_id}: ${message}`)
            return { sent: true, down: false }
          case "rejected":
            yield* settle(
              row.kind === "now_playing"
                ? rows.discard(row.id)
                : rows.markRejected(row.id, row.user_id, provider, message, after),
            )
            return { sent: true, down: false }
          case "retry": {
            // A now-playing notice is not retried: by the next attempt it would be stale.
            if (row.kind === "now_playing") {
              yield* settle(rows.discard(row.id))
              return { sent: true, down: false }
            }
            const delay = Math.max(
              scrobbleRetryDelayMs(row.attempts, settings.retryBaseMs, settings.retryMaxMs),
              outcome.retryAfterMs ?? 0,
            )
            yield* settle(
              rows.markRetry(row.id, row.user_id, provider, message, new Date(after.getTime() + delay), after),
            )
            return { sent: true, down: true }
          }
        }
        // Uninterruptible: a shutdown waits for the one request in flight (bounded by the provider timeout) and
        // records its outcome, so a restart neither sends it twice nor leaves it leased.
      }).pipe(Effect.uninterruptible)

    /** How long to wait when idle: until the next due row, at most the poll interval. */
    const idleMs = (provider: ScrobbleProvider) =>
      Effect.gen(function* () {
        const next = yield* rows.nextDue(provider)
        const now = yield* currentDate
        return next === null ? settings.pollMs : Math.max(0, Math.min(settings.pollMs, next.getTime() - now.getTime()))
      })

    const drain = (provider: ScrobbleProvider) =>
      Effect.gen(function* () {
        // Taken before looking, so a play queued while this round runs still wakes the next wait.
        const woken = yield* Ref.get(signal)
        const result = yield* sendOne(provider).pipe(
          Effect.catchAllCause((cause) =>
            Effect.logWarning(`scrobble sender (${provider}) failed a round`, cause).pipe(
              Effect.as({ sent: false, down: true }),
            ),
          ),
        )
        if (result.down) {
          // The provider seems down: one probe per base delay rather than failing through the backlog.
          yield* Effect.sleep(Duration.millis(settings.retryBaseMs))
          return
        }
        if (result.sent) return
        const wait = yield* idleMs(provider).pipe(Effect.orElseSucceed(() => settings.pollMs))
        if (wait === 0) return
        yield* Effect.race(Deferred.await(woken), Effect.sleep(Duration.millis(wait)))
      }).pipe(Effect.forever)

    // Each provider's sender on the one replica holding its lease (issue 30): one sender sends in play order.
    if (settings.runSender)
      for (const provider of SCROBBLE_PROVIDERS) yield* leases.duty(scrobbleLeaseOf(provider), drain(provider))

    return { get, update, connectLastfm, enqueue, wake } as const
  }),
  dependencies: [ScrobbleRepository.Default, ProviderHttp.Default, Leases.Default],
}) {}
