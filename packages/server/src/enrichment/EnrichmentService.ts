import { promises as fs } from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import {
  type ArtistId,
  ConnectionTest,
  EXTERNAL_PROVIDER_IDS,
  NotFound,
  providerEntry,
  RefetchStarted,
  ResearchStarted,
  retryDecision,
  TagSource,
  type TagSourcePatch,
  TagSources,
  type WeightedTag,
} from "@tonearm/core"
import { Clock, Deferred, Duration, Effect, type Exit, Fiber, Option, Queue, Ref, Schema, Scope } from "effect"
import { ChangeLog } from "../changes/index.js"
import { currentDate } from "../clock.js"
import { enrichmentSettingsOf, TonearmConfig } from "../config/TonearmConfig.js"
import { orInternal } from "../db/sqlErrors.js"
import { type HeldLease, Leases } from "../leases/index.js"
import {
  externalArtistImagesDir,
  externalCoversDir,
  LibraryEnrichment,
  LibraryService,
  ScanSignals,
} from "../library/index.js"
import { type ClaimedRow, EnrichmentRepository, type EntityKind } from "./EnrichmentRepository.js"
import { ProviderHttp } from "./ProviderHttp.js"
import {
  type Enriched,
  type EntityToEnrich,
  makeProviders,
  type Provider,
  type ProviderError,
  type SimilarArtist,
} from "./Providers.js"

/** The lease under which one replica seeds and drains enrichment (every provider). */
export const ENRICHMENT_LEASE = "enrichment"
/** Rows a provider's drain claims at once (its throttle still spaces every request). */
const CLAIM_BATCH = 20
/**
 * How long a claimed row stays with this replica before another may take it: a fallback only, as the next holder of
 * ENRICHMENT_LEASE hands a dead holder's claims back when it takes over (`releaseOrphans`).
 */
const LEASE_MS = 5 * 60_000
/**
 * How long a Discover request waits for providers' similar artists it has not cached yet; a slower provider
 * keeps filling its cache in the background for the next request.
 */
const SIMILAR_WAIT_MS = 3_000
/** After a failed similar-artist lookup, that provider and seed are not asked again for this long. */
const SIMILAR_FAILURE_PAUSE_MS = 5 * 60_000
/** Cover providers a refetch re-opens. */
const EXTERNAL_COVER_SOURCES = ["coverartarchive", "lastfm"] as const

/** A Discover candidate from a provider (the shape of recommend's `SuggestionCandidate`). */
export interface ProviderCandidate {
  readonly mbid: string
  readonly name: string
  readonly score: number
  readonly in_library: boolean
  readonly artist_id?: ArtistId | undefined
  readonly tags: ReadonlyArray<WeightedTag>
}

/** A similar-artist source over a provider, in the form Discover's `SuggestionSource` takes. */
export interface ProviderSimilarSource {
  readonly name: string
  readonly similarTo: (
    seeds: ReadonlyArray<ArtistId>,
    perSeed: number,
  ) => Effect.Effect<ReadonlyMap<ArtistId, ReadonlyArray<ProviderCandidate>>>
}

const CachedCandidates = Schema.Array(
  Schema.Struct({
    mbid: Schema.String,
    name: Schema.String,
    score: Schema.Number,
    tags: Schema.Array(Schema.Struct({ name: Schema.String, weight: Schema.Number })),
  }),
)

/**
 * Enrichment (spec "What the service does" 7): the provider registry and its admin routes, and the drain
 * that enriches new and changed albums and artists after scans. One background fiber per provider claims
 * due rows and works through them one request at a time at that provider's throttle, so the work is
 * unbounded per scan but each provider is asked no faster than configured. Every row ends settled (the
 * provider answered, found or not) or failed (retried with backoff, then given up); a restart resumes from
 * the rows, and a settled row is not fetched again until its entity changes or an admin asks for research.
 */
export class EnrichmentService extends Effect.Service<EnrichmentService>()("@tonearm/server/EnrichmentService", {
  scoped: Effect.gen(function* () {
    const rows = yield* EnrichmentRepository
    const http = yield* ProviderHttp
    const library = yield* LibraryService
    const catalog = yield* LibraryEnrichment
    const signals = yield* ScanSignals
    const changes = yield* ChangeLog
    const config = yield* TonearmConfig
    const settings = enrichmentSettingsOf(config)
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Effect.scope
    const leases = yield* Leases
    const providers = makeProviders(http)
    const byId = new Map(providers.map((provider) => [provider.id as string, provider]))

    // --- settings ---

    const envKeyOf = (id: string): string | null =>
      id === "musicbrainz" || id === "lastfm" || id === "listenbrainz" || id === "coverartarchive"
        ? settings[id].apiKey
        : null

    /** Each external provider's enabled flag and effective key (the admin's, else the configured one). */
    const effective = Effect.map(rows.providers, (stored) =>
      EXTERNAL_PROVIDER_IDS.map((id) => {
        const row = stored.find((candidate) => candidate.id === id)
        return { id, enabled: row?.enabled ?? false, apiKey: row?.api_key ?? envKeyOf(id) }
      }),
    )

    /** Providers that can work now: enabled, and keyed when they need a key. */
    const active = Effect.map(effective, (all) =>
      all.filter((entry) => entry.enabled && (!providerEntry(entry.id)?.requiresApiKey || (entry.apiKey ?? "") !== "")),
    )

    const enabledIds = Effect.map(effective, (all) => new Set(all.filter((entry) => entry.enabled).map((e) => e.id)))

    const sourceOf = (
      entry: { id: string; enabled: boolean; apiKey: string | null },
      version: number,
      counts: ReadonlyArray<{ readonly provider: string; readonly status: string; readonly n: number }>,
    ) => {
      const registry = providerEntry(entry.id)!
      const count = (status: string) => counts.find((row) => row.provider === entry.id && row.status === status)?.n ?? 0
      return new TagSource({
        runs: { pending: count("pending"), settled: count("settled"), failed: count("failed") },
        id: entry.id,
        enabled: entry.enabled,
        api_key: entry.apiKey,
        version,
        capabilities: [...registry.capabilities],
        requires_api_key: registry.requiresApiKey,
        testable: registry.testable,
      })
    }

    const list = Effect.gen(function* () {
      const [all, version, counts] = yield* Effect.all([effective, rows.version, rows.statusCounts])
      return new TagSources({ version, providers: all.map((entry) => sourceOf(entry, version, counts)) })
    })

    const known = (id: string) =>
      (EXTERNAL_PROVIDER_IDS as ReadonlyArray<string>).includes(id)
        ? Effect.void
        : Effect.fail(new NotFound({ message: `no tag source ${JSON.stringify(id)}`, resource: "tag_source" }))

    // --- wake-ups: a change (scan seen, provider switched on, research) starts the drains at once ---

    const signal = yield* Ref.make(yield* Deferred.make<void>())
    const wake = Effect.gen(function* () {
      const next = yield* Deferred.make<void>()
      const current = yield* Ref.getAndSet(signal, next)
      yield* Deferred.succeed(current, undefined)
    })
    const idle = Effect.flatMap(Ref.get(signal), (current) =>
      Effect.race(Deferred.await(current), Effect.sleep(Duration.millis(settings.pollMs))),
    )

    /** Changing `enabled` bumps the version; a key-only change does not (spec "Administration"). */
    const update = Effect.fn("EnrichmentService.update")(function* (id: string, patch: TagSourcePatch) {
      yield* known(id)
      const now = yield* currentDate
      const apiKey =
        patch.api_key === undefined
          ? undefined
          : patch.api_key === null || patch.api_key.trim() === ""
            ? null
            : patch.api_key.trim()
      const changed = yield* sql
        .withTransaction(
          Effect.gen(function* () {
            const enabledChanged = yield* rows.saveProvider(id, patch.enabled, apiKey, now)
            if (enabledChanged) yield* rows.bumpVersion
            return enabledChanged
          }),
        )
        .pipe(orInternal("EnrichmentService.update"))
      if (changed || apiKey !== undefined) {
        yield* rows.forgetSimilar(id)
        for (const flight of failedUntil.keys()) if (flight.startsWith(`${id}|`)) failedUntil.delete(flight)
      }
      if (changed) yield* wake
      const [all, version, counts] = yield* Effect.all([effective, rows.version, rows.statusCounts])
      return sourceOf(all.find((entry) => entry.id === id)!, version, counts)
    })

    const test = Effect.fn("EnrichmentService.test")(function* (id: string) {
      // A local cover source (sidecar, embedded) reads the library's own files: nothing to connect to.
      if (providerEntry(id)?.local)
        return new ConnectionTest({ ok: false, message: `${id} reads the library's own files and cannot be tested` })
      yield* known(id)
      const entry = (yield* effective).find((candidate) => candidate.id === id)!
      return yield* byId.get(id)!.test(entry.apiKey)
    })

    /** Research: bumps the version and re-opens settled (and failed) rows for re-enrichment. */
    const research = Effect.gen(function* () {
      const now = yield* currentDate
      const [version, reopened] = yield* sql
        .withTransaction(Effect.all([rows.bumpVersion, rows.reopenAll(now)]))
        .pipe(orInternal("EnrichmentService.research"))
      yield* wake
      return new ResearchStarted({ version, reopened })
    })

    // --- seeding: rows for new and changed entities ---

    const seeded = yield* Ref.make<string | undefined>(undefined)
    /** Opens rows for what the library gained or changed; skipped while the library and providers stand still. */
    const seedIfChanged = (force: boolean) =>
      Effect.gen(function* () {
        const working = yield* active
        const [libraryVersion] = yield* Effect.all([changes.libraryVersion])
        const fingerprint = `${libraryVersion}|${working.map((entry) => entry.id).join(",")}`
        if (!force && (yield* Ref.get(seeded)) === fingerprint) return 0
        const now = yield* currentDate
        let opened = 0
        for (const entry of working)
          for (const kind of byId.get(entry.id)!.kinds) opened += yield* rows.seed(entry.id, kind, now)
        yield* Ref.set(seeded, fingerprint)
        return opened
      })

    // --- the drain ---

    const coverFileName = (albumId: string, provider: string, extension: string) =>
      `${albumId}-${provider}.${extension}`

    const saveCover = (albumId: string, provider: string, cover: NonNullable<Enriched["cover"]>) =>
      Effect.gen(function* () {
        const dir = externalCoversDir(config.dataDir)
        const name = coverFileName(albumId, provider, cover.extension)
        yield* Effect.promise(async () => {
          await fs.mkdir(dir, { recursive: true })
          const temporary = path.join(dir, `.${name}.${process.pid}.tmp`)
          await fs.writeFile(temporary, cover.bytes)
          await fs.rename(temporary, path.join(dir, name))
        })
        return yield* catalog.adoptExternalCover(albumId, provider, name)
      })

    /** Kept as `<artist id>` (no extension: the route sniffs the type), then the artist's art source is set. */
    const saveArtistImage = (artistId: string, provider: string, image: NonNullable<Enriched["image"]>) =>
      Effect.gen(function* () {
        const dir = externalArtistImagesDir(config.dataDir)
        yield* Effect.promise(async () => {
          await fs.mkdir(dir, { recursive: true })
          const temporary = path.join(dir, `.${artistId}.${process.pid}.tmp`)
          await fs.writeFile(temporary, image.bytes)
          await fs.rename(temporary, path.join(dir, artistId))
        })
        return yield* catalog.adoptArtistArt(artistId, provider)
      })

    const entityOf = (row: ClaimedRow): EntityToEnrich | undefined => {
      if (row.album_id !== null)
        return row.album_title === null
          ? undefined
          : {
              kind: "album",
              id: row.album_id,
              name: row.album_title,
              artistName: row.artist_name,
              mbid: row.album_mbid,
            }
      if (row.artist_id !== null)
        return row.artist_name === null
          ? undefined
          : { kind: "artist", id: row.artist_id, name: row.artist_name, artistName: null, mbid: row.artist_mbid }
      return undefined
    }

    /** Keeps what one provider found: tags, a MusicBrainz id (others look again), a cover for an uncovered album. */
    const keep = (provider: Provider, row: ClaimedRow, entity: EntityToEnrich, found: Enriched) =>
      Effect.gen(function* () {
        const now = yield* currentDate
        if (providerEntry(provider.id)?.capabilities.includes("tags") && found.tags !== undefined)
          yield* rows.storeTags(provider.id, entity.kind, entity.id, found.tags, now)
        if (found.mbid !== undefined && entity.mbid === null) {
          const adopted = yield* catalog.adoptMbid(entity.kind, entity.id, found.mbid)
          if (adopted)
            yield* rows.reopenEntity(
              entity.kind,
              entity.id,
              providers.filter((other) => other.needsMbid).map((other) => other.id),
              now,
            )
        }
        if (found.cover !== undefined && entity.kind === "album" && row.album_cover === null)
          yield* saveCover(entity.id, provider.id, found.cover)
        if (found.image !== undefined && entity.kind === "artist" && row.artist_art === null)
          yield* saveArtistImage(entity.id, provider.id, found.image)
        yield* rows.settle(row.id, now)
      })

    const work = (provider: Provider, apiKey: string | null, row: ClaimedRow) =>
      Effect.gen(function* () {
        const entity = entityOf(row)
        if (entity === undefined) return yield* rows.settle(row.id, yield* currentDate)
        // A cover-only provider has nothing to add to an album that already has a cover.
        const capabilities = providerEntry(provider.id)?.capabilities ?? []
        if (entity.kind === "album" && row.album_cover !== null && capabilities.every((c) => c === "covers"))
          return yield* rows.settle(row.id, yield* currentDate)
        const outcome = yield* Effect.either(provider.enrich(entity, apiKey))
        if (outcome._tag === "Right") return yield* keep(provider, row, entity, outcome.right)
        const error = outcome.left
        const now = yield* currentDate
        // Not known to the provider: settled with nothing (its old tags, if any, go).
        if (error._tag === "ProviderNotFound") return yield* keep(provider, row, entity, { tags: [] })
        const attempts = row.attempts + 1
        const decision = retryDecision(attempts, {
          baseMs: settings.retryBaseMs,
          maxMs: settings.retryMaxMs,
          maxAttempts: settings.maxAttempts,
        })
        if (decision._tag === "Retry")
          yield* rows.retryLater(row.id, attempts, new Date(now.getTime() + decision.delayMs), error.message)
        else {
          yield* Effect.logWarning(
            `enrichment: ${provider.id} gave up on ${entity.kind} ${entity.id} after ${attempts} attempts: ${error.message}`,
          )
          yield* rows.fail(row.id, attempts, now, error.message)
        }
      }).pipe(
        // A storage hiccup leaves the row leased; it comes back when the lease ends.
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`enrichment: ${provider.id} row ${row.id} not finished`, cause),
        ),
      )

    /**
     * One provider's drain under ENRICHMENT_LEASE's generation `generation`: claim due rows, work them at the
     * provider's pace, idle when none are due.
     */
    const drain = (provider: Provider, generation: number) =>
      Effect.gen(function* () {
        const entry = (yield* active).find((candidate) => candidate.id === provider.id)
        if (entry === undefined) return yield* idle
        const now = yield* currentDate
        const claimed = yield* rows.claim(provider.id, now, new Date(now.getTime() + LEASE_MS), CLAIM_BATCH, {
          name: ENRICHMENT_LEASE,
          generation,
        })
        if (claimed.length === 0) return yield* idle
        // Rows claimed but not worked when this replica stops go back at once (after a crash, the next holder of
        // the lease hands them back).
        const done = new Set<number>()
        yield* Effect.forEach(
          claimed,
          (row) =>
            Effect.zipRight(
              work(provider, entry.apiKey, row),
              Effect.sync(() => done.add(row.id)),
            ),
          { discard: true },
        ).pipe(
          Effect.onInterrupt(() =>
            rows.release(claimed.filter((row) => !done.has(row.id)).map((row) => row.id)).pipe(Effect.ignore),
          ),
        )
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`enrichment: ${provider.id} drain hiccup`, cause).pipe(Effect.zipRight(idle)),
        ),
        Effect.forever,
      )

    /** Looks for new and changed albums and artists after each scan (the library version moves). */
    const seeder = Effect.gen(function* () {
      const opened = yield* seedIfChanged(false)
      if (opened > 0) yield* wake
      yield* idle
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.logWarning("enrichment: seeding failed", cause).pipe(Effect.zipRight(idle)),
      ),
      Effect.forever,
    )

    if (settings.runDrains) {
      // The seeder and the drains run on the one replica holding ENRICHMENT_LEASE (issue 30); a wake-up on another
      // replica (a provider switched on there) reaches them by the poll.
      const drains = (held: HeldLease) =>
        Effect.gen(function* () {
          // Whoever held the lease before is gone (killed, or cut off and stopped): its claimed rows are due now,
          // not when their claim runs out (issue 29 item 4).
          const orphans = yield* rows.releaseOrphans(held.generation)
          if (orphans > 0)
            yield* Effect.logInfo(`enrichment: ${orphans} row(s) claimed by an earlier holder are due again`)
          // A finished scan wakes the seeder at once (the poll is the fallback, e.g. for another replica's scan).
          const scansDone = yield* signals.subscribe
          yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Queue.take(scansDone), wake)))
          yield* Effect.forkScoped(seeder)
          for (const provider of providers) yield* Effect.forkScoped(drain(provider, held.generation))
        })
      yield* Effect.provideService(leases.dutyWith(ENRICHMENT_LEASE, drains), Scope.Scope, scope)
    }

    // --- covers refetch ---

    const coversDrain = yield* Ref.make<Option.Option<Fiber.RuntimeFiber<void>>>(Option.none())

    /** Starts an unbounded background drain of the cover providers over albums without a cover. */
    const refetchMissingCovers = Effect.gen(function* () {
      const running = yield* Ref.get(coversDrain)
      if (Option.isSome(running) && Option.isNone(yield* Fiber.poll(running.value)))
        return new RefetchStarted({ started: false })
      const now = yield* currentDate
      yield* seedIfChanged(true)
      yield* rows.reopenMissingCovers(EXTERNAL_COVER_SOURCES, now)
      yield* wake
      // Ends when no cover row is pending any more; the drains above do the fetching.
      const working = Effect.map(active, (all) =>
        all
          .map((entry) => entry.id as string)
          .filter((id) => (EXTERNAL_COVER_SOURCES as ReadonlyArray<string>).includes(id)),
      )
      const watcher = yield* Effect.gen(function* () {
        while ((yield* rows.pendingCount(yield* working)) > 0)
          yield* Effect.sleep(Duration.millis(Math.min(settings.pollMs, 1000)))
      }).pipe(
        Effect.catchAllCause(() => Effect.void),
        Effect.forkIn(scope),
      )
      yield* Ref.set(coversDrain, Option.some(watcher))
      return new RefetchStarted({ started: true })
    })

    // --- similar artists (Discover's out-of-library candidates) ---

    const filling = new Map<string, Deferred.Deferred<ReadonlyArray<SimilarArtist>, ProviderError>>()
    const failedUntil = new Map<string, number>()

    const similarOf = (
      provider: Provider & { readonly similar: NonNullable<Provider["similar"]> },
      apiKey: string | null,
      seed: { readonly mbid: string | null; readonly name: string },
      limit: number,
    ) => {
      const key = seed.mbid ?? `name:${seed.name.toLowerCase()}`
      return Effect.gen(function* () {
        const now = yield* currentDate
        const fresh = new Date(now.getTime() - settings.similarCacheHours * 3_600_000)
        const cached = yield* rows.cachedSimilar(provider.id, key, fresh)
        if (Option.isSome(cached)) {
          const decoded = Schema.decodeUnknownOption(CachedCandidates)(cached.value)
          if (Option.isSome(decoded)) return Option.some(decoded.value as ReadonlyArray<SimilarArtist>)
        }
        return Option.none<ReadonlyArray<SimilarArtist>>()
      }).pipe(
        Effect.flatMap((hit) =>
          Option.isSome(hit)
            ? Effect.succeed(hit.value)
            : Effect.gen(function* () {
                // Seeds sharing a MusicBrainz id share one request: later ones wait for the first's answer.
                const flight = `${provider.id}|${key}`
                if ((failedUntil.get(flight) ?? 0) > (yield* Clock.currentTimeMillis)) return []
                const running = filling.get(flight)
                if (running !== undefined) return yield* Deferred.await(running)
                const answer = yield* Deferred.make<ReadonlyArray<SimilarArtist>, ProviderError>()
                filling.set(flight, answer)
                return yield* provider.similar(seed, limit, apiKey).pipe(
                  Effect.tap((found) =>
                    Effect.flatMap(currentDate, (now) => rows.cacheSimilar(provider.id, key, found, now)),
                  ),
                  Effect.tapError(() =>
                    Effect.flatMap(Clock.currentTimeMillis, (now) =>
                      Effect.sync(() => failedUntil.set(flight, now + SIMILAR_FAILURE_PAUSE_MS)),
                    ),
                  ),
                  Effect.exit,
                  Effect.tap((exit) =>
                    Deferred.done(answer, exit as Exit.Exit<ReadonlyArray<SimilarArtist>, ProviderError>),
                  ),
                  Effect.ensuring(Effect.sync(() => filling.delete(flight))),
                  Effect.flatten,
                )
              }),
        ),
      )
    }

    /**
     * Discover's provider sources: for each seed artist, the provider's similar artists (cached), as candidates
     * keyed by MusicBrainz id. A provider that is off, down or slow answers nothing rather than failing; one
     * that is slow keeps filling its cache in the background for the next request.
     */
    const similarSources: ReadonlyArray<ProviderSimilarSource> = providers
      .filter(
        (provider): provider is Provider & { similar: NonNullable<Provider["similar"]> } =>
          provider.similar !== undefined,
      )
      .map((provider) => ({
        name: provider.id,
        similarTo: (seeds: ReadonlyArray<ArtistId>, perSeed: number) =>
          Effect.gen(function* () {
            const entry = (yield* active).find((candidate) => candidate.id === provider.id)
            if (entry === undefined || seeds.length === 0) return new Map<ArtistId, ReadonlyArray<ProviderCandidate>>()
            const artists = yield* library.artistsByIds(seeds)
            const limit = Math.min(perSeed, 100)
            const fill = yield* Effect.forEach(
              artists,
              (artist) =>
                similarOf(provider, entry.apiKey, { mbid: artist.mbid, name: artist.name }, limit).pipe(
                  Effect.map((found) => [artist.id, found] as const),
                  Effect.catchAllCause((cause) =>
                    Effect.logDebug(`similar artists from ${provider.id} unavailable`, cause).pipe(
                      Effect.as([artist.id, [] as ReadonlyArray<SimilarArtist>] as const),
                    ),
                  ),
                ),
              { concurrency: 4 },
            ).pipe(Effect.forkIn(scope))
            const answered = yield* Fiber.join(fill).pipe(
              Effect.timeout(Duration.millis(SIMILAR_WAIT_MS)),
              Effect.orElseSucceed(() => [] as ReadonlyArray<readonly [ArtistId, ReadonlyArray<SimilarArtist>]>),
            )
            const local = yield* rows.artistsByMbid([
              ...new Set(answered.flatMap(([, found]) => found.map((candidate) => candidate.mbid))),
            ])
            return new Map(
              answered.map(([seed, found]) => [
                seed,
                found.map((candidate): ProviderCandidate => {
                  const artistId = local.get(candidate.mbid) as ArtistId | undefined
                  return {
                    mbid: candidate.mbid,
                    name: candidate.name,
                    score: candidate.score,
                    in_library: artistId !== undefined,
                    artist_id: artistId,
                    tags: candidate.tags,
                  }
                }),
              ]),
            )
          }).pipe(
            Effect.catchAllCause((cause) =>
              Effect.logWarning(`similar artists from ${provider.id} failed`, cause).pipe(
                Effect.as(new Map<ArtistId, ReadonlyArray<ProviderCandidate>>()),
              ),
            ),
          ),
      }))

    /** How far the drains are, per provider and state (admin page, tests). */
    const progress = rows.statusCounts

    return {
      list,
      update,
      test,
      research,
      refetchMissingCovers,
      enabledIds,
      /** Every enriched tag as JSON text (the taste profile's tag and mood input; `catalogColumns.ts`). */
      catalogTags: rows.catalogTags,
      tagsRevision: rows.tagsRevision,
      similarSources,
      progress,
      wake,
    } as const
  }),
  dependencies: [EnrichmentRepository.Default, ProviderHttp.Default, LibraryEnrichment.Default, Leases.Default],
}) {}

export type { EntityKind }
