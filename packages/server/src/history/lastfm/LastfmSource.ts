/**
 * The `lastfm_api` import source (contract "Listening history in and out"): pulls an account's scrobbles with
 * `user.getRecentTracks`, newest page first, through the provider throttle enrichment uses (one Last.fm request
 * at a time per replica, `TONEARM_LASTFM_THROTTLE_MS` apart, whoever asks). Each page is handed to the import
 * runner with the cursor that resumes after it; the runner commits both in one transaction, so a restart goes on
 * at the next page and a page fetched twice adds nothing (the idempotence rule).
 */

import { HttpClientRequest } from "@effect/platform"
import {
  InvalidRequest,
  type LastfmCursor,
  type LastfmRecentAnswer,
  lastfmErrorKind,
  lastfmNextCursor,
  lastfmPageParams,
  lastfmRecentTracks,
  lastfmStartCursor,
  lastfmUsername,
} from "@tonearm/core"
import { Clock, Context, Data, Duration, Effect, Option, Schedule, Stream } from "effect"
import { EnrichmentService, ProviderHttp } from "../../enrichment/index.js"
import { ImportFailed, type ImportJob, type ImportSourcePlugin, type ListenPage } from "../ImportSources.js"

/** How a page that failed for a passing reason is asked again: doubling from `retryBaseMs`, capped. */
export interface LastfmPullTuningValues {
  readonly retryBaseMs: number
  readonly retryMaxMs: number
  /** Tries of one page before the import fails (its pages so far stay imported). */
  readonly maxAttempts: number
}

export class LastfmPullTuning extends Context.Reference<LastfmPullTuning>()("@tonearm/server/LastfmPullTuning", {
  // 2 s, 4 s, … capped at a minute: about five minutes of Last.fm trouble before giving up.
  defaultValue: (): LastfmPullTuningValues => ({ retryBaseMs: 2_000, retryMaxMs: 60_000, maxAttempts: 8 }),
}) {}

/** A page that may answer if asked again: the provider down, a 5xx, a timeout, Last.fm's rate limit (29). */
class Transient extends Data.TaggedError("Transient")<{ readonly message: string }> {}

type LastfmPage = Extract<LastfmRecentAnswer, { readonly _tag: "page" }>

const parsedOrNull = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

const failed = (message: string) => new ImportFailed({ message, badFile: false })

const usernameOf = (params: Readonly<Record<string, unknown>>): string | null =>
  typeof params.username === "string" ? lastfmUsername(params.username) : null

export const makeLastfmSource: Effect.Effect<ImportSourcePlugin, never, ProviderHttp | EnrichmentService> = Effect.gen(
  function* () {
    const http = yield* ProviderHttp
    const enrichment = yield* EnrichmentService
    const url = `${http.settings.lastfm.baseUrl.replace(/\/+$/, "")}/2.0/`

    /** The key enrichment uses: the admin's (tag sources), else `TONEARM_LASTFM_API_KEY`. */
    const apiKey = enrichment.list.pipe(
      Effect.map((sources) => {
        const key = sources.providers.find((provider) => provider.id === "lastfm")?.api_key ?? null
        return key === null || key === "" ? Option.none<string>() : Option.some(key)
      }),
    )

    const noKey = "Last.fm imports need a Last.fm API key: set TONEARM_LASTFM_API_KEY or the Last.fm tag source's key"

    const check = (params: Readonly<Record<string, unknown>>) =>
      Effect.gen(function* () {
        if (usernameOf(params) === null)
          return yield* new InvalidRequest({
            message: "username: a Last.fm username is letters, digits, `_`, `-` or `.` (1 to 64)",
          })
        const key = yield* apiKey.pipe(Effect.orElseSucceed(() => Option.none<string>()))
        if (Option.isNone(key)) return yield* new InvalidRequest({ message: `source: ${noKey}` })
      })

    /** One page, asked again with backoff while the failure is passing. */
    const fetchPage = (key: string, username: string, cursor: LastfmCursor) =>
      Effect.gen(function* () {
        const tuning = yield* LastfmPullTuning
        // `exchange`: the answer whatever its status, so Last.fm's own error (a 403's bad key, a 404's unknown
        // user, a 429's rate limit) is read from the body instead of guessed from the status.
        const once = http
          .exchange(
            "lastfm",
            HttpClientRequest.get(url, {
              urlParams: {
                method: "user.getrecenttracks",
                ...lastfmPageParams(username, cursor),
                api_key: key,
                format: "json",
              },
            }),
          )
          .pipe(
            Effect.mapError((error) => new Transient({ message: error.message })),
            Effect.flatMap((answered): Effect.Effect<LastfmPage, ImportFailed | Transient> => {
              const answer = lastfmRecentTracks(parsedOrNull(answered.text))
              const ok = answered.status >= 200 && answered.status < 300
              if (answer._tag === "page" && ok) return Effect.succeed(answer)
              if (answer._tag === "error") {
                const said = `Last.fm error ${answer.code}: ${answer.message}`
                const kind = lastfmErrorKind(answer.code)
                if (kind === "retry") return Effect.fail(new Transient({ message: said }))
                return Effect.fail(
                  failed(
                    kind === "unknown_user"
                      ? `Last.fm has no user named ${username}`
                      : kind === "private"
                        ? `${username}'s Last.fm listening history is private (${said})`
                        : `Last.fm refused the request (${said})`,
                  ),
                )
              }
              if (ok) return Effect.fail(new Transient({ message: "the answer is not a page of scrobbles" }))
              // No Last.fm error in the body: a proxy's or a server's failure. 5xx, 408 and 429 pass; another 4xx
              // will answer the same again.
              return answered.status >= 500 || answered.status === 408 || answered.status === 429
                ? Effect.fail(new Transient({ message: `answered ${answered.status}` }))
                : Effect.fail(failed(`Last.fm answered ${answered.status} (is TONEARM_LASTFM_URL right?)`))
            }),
          )
        const backoff = Schedule.exponential(Duration.millis(tuning.retryBaseMs), 2).pipe(
          Schedule.modifyDelay((delay) => Duration.min(delay, Duration.millis(tuning.retryMaxMs))),
          Schedule.intersect(Schedule.recurs(Math.max(0, tuning.maxAttempts - 1))),
        )
        return yield* once.pipe(
          Effect.tapError((error) =>
            error._tag === "Transient"
              ? Effect.logWarning(`Last.fm page ${cursor.page} of ${username}: ${error.message}; asking again`)
              : Effect.void,
          ),
          Effect.retry({ schedule: backoff, while: (error) => error._tag === "Transient" }),
          Effect.catchTag("Transient", (error) =>
            Effect.fail(
              failed(
                `Last.fm did not answer page ${cursor.page} after ${tuning.maxAttempts} tries (${error.message}); the pages before it are imported, start the import again to go on`,
              ),
            ),
          ),
        )
      })

    const pages = (job: ImportJob): Stream.Stream<ListenPage, ImportFailed> =>
      Stream.unwrap(
        Effect.gen(function* () {
          const username = usernameOf(job.params)
          if (username === null) return yield* failed("the Last.fm username is not one")
          const key = yield* apiKey.pipe(Effect.mapError(() => failed("the Last.fm API key could not be read")))
          if (Option.isNone(key)) return yield* failed(noKey)
          const start = lastfmStartCursor(job.cursor, yield* Clock.currentTimeMillis)
          return Stream.unfoldEffect(start, (cursor) =>
            cursor.done
              ? Effect.succeed(Option.none())
              : Effect.map(fetchPage(key.value, username, cursor), (answer) => {
                  const next = lastfmNextCursor(cursor, answer.total_pages)
                  const page: ListenPage = { listens: answer.listens, incomplete: answer.incomplete, cursor: next }
                  return Option.some([page, next] as const)
                }),
          )
        }),
      )

    return { kind: "listens", source: "lastfm_api", check, pages } satisfies ImportSourcePlugin
  },
)
