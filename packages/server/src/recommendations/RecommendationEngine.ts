import type { AlbumId, ArtistId, Internal, TrackId, Tuning, UserId } from "@tonearm/core"
import {
  buildCatalog,
  type Catalog,
  type CoListenRow,
  type FittedSimilarity,
  fitSimilarityData,
  type LibraryTrack,
  type Pick,
  type PlayRow,
  type RadioOptions,
  type RadioSeed,
  type RadioSeedNotFound,
  radio,
  rebuildUser,
  type SeedSimilarities,
  type SimilarArtist,
  type SimilarArtistsQuery,
  type Surface,
  summarizeHistory,
  type TasteProfile,
  type TasteProfileRow,
  tasteProfileRows,
} from "@tonearm/recommend"
import { Context, Effect, Layer, Ref } from "effect"
// The modules, not the domains' indexes: the engine's worker loads this file and must not load the services.
import { type CatalogText, libraryTracksOf } from "../library/catalogColumns.js"
import { decodeTasteText, isUndecodedTaste, type TasteColumns, type TasteText } from "../listening/tasteColumns.js"
import { learnedSimilarityCache, type SimilarityModelRef } from "./learnedSimilarityCache.js"

/** A fitted learned similarity as the server holds it: the fit and the key naming it (LearnedSimilarityService). */
export interface HeldSimilarity {
  readonly key: string
  readonly fitted: FittedSimilarity
}

/**
 * The library as the engine scores it: a version (changes whenever the library does) and its tracks, as rows
 * (tests, built in memory) or as the library domain loads them, undecoded (decoded where the engine runs).
 */
export interface CatalogSource {
  readonly version: string
  readonly load: Effect.Effect<ReadonlyArray<LibraryTrack> | CatalogText, Internal>
}

/**
 * Everyone's unskipped plays per track since `sinceMs`, counted once for many users. `version` names one
 * count: a worker receives the counts once per version and derives each user's signals from them.
 */
export interface SharedPlayCounts {
  readonly version: string
  readonly sinceMs: number
  readonly counts: ReadonlyMap<TrackId, number>
}

/** Signals about other users and providers that some surfaces use (see `SurfaceInput`). */
export interface EngineSignals {
  readonly excluded?: ReadonlySet<TrackId> | undefined
  readonly popularity?: ReadonlyMap<TrackId, number> | undefined
  readonly crossUser?: ReadonlyMap<TrackId, number> | undefined
  /**
   * When given (and `popularity` / `crossUser` are not), the engine derives them: popularity = count / the
   * largest count, crossUser = count less the user's own unskipped plays since `sinceMs` (`sharedSignals`).
   */
  readonly sharedPlays?: SharedPlayCounts | undefined
  readonly similarArtists?: ReadonlyMap<ArtistId, ReadonlyArray<SimilarArtist>> | undefined
  readonly snoozedArtistMbids?: ReadonlySet<string> | undefined
}

/** A user's plays in time order as columns (decoded; tests and callers that build plays in memory). */
export type PlayColumns = TasteColumns
/** A user's plays as the listening domain loads them, undecoded: cheap to post, decoded where the engine runs. */
export type PlayText = TasteText

/** Everything one user's rebuild (or radio) is computed from, as plain data that can cross a thread. */
export interface EngineInput {
  readonly user: UserId
  readonly timeZone: string
  readonly plays: ReadonlyArray<PlayRow> | PlayColumns | PlayText
  readonly likes: {
    readonly tracks: ReadonlyArray<TrackId>
    readonly albums: ReadonlyArray<AlbumId>
    readonly artists: ReadonlyArray<ArtistId>
  }
  readonly tuning: Tuning
  readonly signals: EngineSignals
}

export interface RebuildResult {
  readonly profile: ReadonlyArray<TasteProfileRow>
  readonly surfaces: ReadonlyArray<Surface>
  readonly youMightLike: { readonly albums: ReadonlyArray<AlbumId>; readonly artists: ReadonlyArray<ArtistId> }
}

/**
 * Where the server places the engine: its own processes (the default, production), or the calling fiber for tests
 * that are not about the process boundary (no process to spawn per test file; TestClock and TestRandom reach it).
 */
export class EnginePlacement extends Context.Reference<EnginePlacement>()("@tonearm/server/EnginePlacement", {
  defaultValue: (): "processes" | "in-process" => "processes",
}) {}

/**
 * Where the pure engine runs. The computation is CPU-heavy, so production runs it off the HTTP event loop;
 * `inProcess` runs it on the calling fiber (tests, the CLI). Clock and Random come from the caller's fiber
 * in process.
 */
export class RecommendationEngine extends Context.Tag("@tonearm/server/RecommendationEngine")<
  RecommendationEngine,
  {
    /** One user's taste profile, every system playlist and the You-might-like rows. */
    readonly rebuild: (catalog: CatalogSource, input: EngineInput) => Effect.Effect<RebuildResult, Internal>
    /** A radio from a seed, scored with the user's stored profile. */
    readonly radio: (
      catalog: CatalogSource,
      input: EngineInput,
      profile: TasteProfile,
      seed: RadioSeed,
      options: RadioOptions,
    ) => Effect.Effect<ReadonlyArray<Pick>, RadioSeedNotFound | Internal>
    /**
     * In-library artists similar to each seed: the learned similarity `model` (fitted on this server's
     * co-listening) blended with the tag cosine; the tag cosine alone without a model (similarInLibrary.ts).
     */
    readonly similarArtists: (
      catalog: CatalogSource,
      query: SimilarArtistsQuery,
      model: HeldSimilarity | undefined,
    ) => Effect.Effect<ReadonlyArray<SeedSimilarities>, Internal>
    /** Fits the learned similarity on everyone's co-listening (seconds at scale: never on a read's path). */
    readonly fitSimilarity: (
      catalog: CatalogSource,
      coListens: ReadonlyArray<CoListenRow>,
      key: string,
    ) => Effect.Effect<FittedSimilarity, Internal>
  }
>() {
  /** On the calling fiber, with the prepared catalog kept for as long as the library's version holds. */
  static readonly inProcess = Layer.effect(
    RecommendationEngine,
    Effect.gen(function* () {
      const cached = yield* Ref.make<{ readonly version: string; readonly catalog: Catalog } | undefined>(undefined)
      const catalogOf = (source: CatalogSource) =>
        Effect.gen(function* () {
          const hit = yield* Ref.get(cached)
          if (hit !== undefined && hit.version === source.version) return hit.catalog
          const catalog = buildCatalog(libraryTracksOf(yield* source.load))
          yield* Ref.set(cached, { version: source.version, catalog })
          return catalog
        })
      const derive = sharedDerivation()
      const learned = learnedSimilarityCache()
      return {
        rebuild: (source, input) =>
          Effect.gen(function* () {
            const catalog = yield* catalogOf(source)
            const plays = playRowsOf(input.plays)
            const built = yield* rebuildUser({
              catalog,
              plays,
              likes: input.likes,
              timeZone: input.timeZone,
              tuning: input.tuning,
              signals: { ...sharedSignals(input.signals, plays, derive), jitterSalt: input.user },
            })
            return toResult(built)
          }),
        radio: (source, input, profile, seed, options) =>
          Effect.gen(function* () {
            const catalog = yield* catalogOf(source)
            const plays = playRowsOf(input.plays)
            const history = summarizeHistory({ catalog, plays, likes: input.likes, timeZone: input.timeZone })
            return yield* radio(
              {
                ...sharedSignals(input.signals, plays, derive),
                profile,
                candidates: catalog,
                history,
                tuning: input.tuning,
                jitterSalt: input.user,
              },
              seed,
              options,
            )
          }),
        similarArtists: (source, query, model) =>
          Effect.map(catalogOf(source), (catalog) =>
            learned.similar(catalog, query, model as SimilarityModelRef | undefined),
          ),
        fitSimilarity: (source, coListens, key) =>
          Effect.map(catalogOf(source), (catalog) => {
            const fitted = fitSimilarityData(catalog, coListens)
            learned.keep(key, fitted)
            return fitted
          }),
      }
    }),
  )
}

/** The engine's answer as plain data (what the worker posts back, too). */
export const toResult = (built: {
  readonly profile: TasteProfile
  readonly snapshots: {
    readonly surfaces: ReadonlyArray<Surface>
    readonly youMightLike: {
      readonly albums: ReadonlyArray<{ readonly id: AlbumId }>
      readonly artists: ReadonlyArray<{ readonly id: ArtistId }>
    }
  }
}): RebuildResult => ({
  profile: tasteProfileRows(built.profile),
  surfaces: built.snapshots.surfaces,
  youMightLike: {
    albums: built.snapshots.youMightLike.albums.map((row) => row.id),
    artists: built.snapshots.youMightLike.artists.map((row) => row.id),
  },
})

/**
 * The engine's `PlayRow`s of a user's plays, whichever form they came in (the text form is decoded here, on
 * the engine's process; a malformed one throws, a defect).
 */
export const playRowsOf = (plays: ReadonlyArray<PlayRow> | PlayColumns | PlayText): ReadonlyArray<PlayRow> => {
  if (Array.isArray(plays)) return plays
  const columns = isUndecodedTaste(plays) ? decodeTasteText(plays) : (plays as PlayColumns)
  const rows: Array<PlayRow> = new Array(columns.trackIds.length)
  for (let i = 0; i < rows.length; i++) {
    const completion = columns.completion[i]!
    rows[i] = {
      track_id: columns.trackIds[i]!,
      started_at_ms: columns.startedAtMs[i]!,
      skipped: columns.skipped[i] === 1,
      completion: Number.isNaN(completion) ? null : completion,
      device_class: columns.deviceClass[i] ?? null,
      source: columns.source[i] ?? null,
      pick_kind: columns.pickKind[i] ?? null,
    }
  }
  return rows
}

/** Popularity per track of one count: count / the largest count (empty when nobody played anything). */
export const popularityOfCounts = (counts: ReadonlyMap<TrackId, number>): ReadonlyMap<TrackId, number> => {
  let most = 0
  for (const count of counts.values()) if (count > most) most = count
  const popularity = new Map<TrackId, number>()
  if (most > 0) for (const [track, count] of counts) popularity.set(track, count / most)
  return popularity
}

/** Popularity is the same for every user of one count: computed once per count version. */
export const popularityCache = () => {
  let held: { readonly version: string; readonly popularity: ReadonlyMap<TrackId, number> } | undefined
  return (shared: SharedPlayCounts) => {
    if (held === undefined || held.version !== shared.version)
      held = { version: shared.version, popularity: popularityOfCounts(shared.counts) }
    return held.popularity
  }
}

/**
 * Other users' plays per track: the server-wide count less the user's own unskipped plays of the same window,
 * tracks with none left out. A read-only view over the shared counts (no ~100k-entry map per user).
 */
export class CrossUserCounts implements ReadonlyMap<TrackId, number> {
  #size: number | undefined
  constructor(
    private readonly counts: ReadonlyMap<TrackId, number>,
    private readonly own: ReadonlyMap<TrackId, number>,
  ) {}
  get(track: TrackId): number | undefined {
    const count = this.counts.get(track)
    if (count === undefined) return undefined
    const others = count - (this.own.get(track) ?? 0)
    return others > 0 ? others : undefined
  }
  has(track: TrackId): boolean {
    return this.get(track) !== undefined
  }
  get size(): number {
    if (this.#size === undefined) {
      let size = 0
      for (const _ of this) size++
      this.#size = size
    }
    return this.#size
  }
  *entries(): MapIterator<[TrackId, number]> {
    const own = this.own
    for (const [track, count] of this.counts) {
      const others = own.size === 0 ? count : count - (own.get(track) ?? 0)
      if (others > 0) yield [track, others]
    }
  }
  [Symbol.iterator](): MapIterator<[TrackId, number]> {
    return this.entries()
  }
  *keys(): MapIterator<TrackId> {
    for (const [track] of this.entries()) yield track
  }
  *values(): MapIterator<number> {
    for (const [, others] of this.entries()) yield others
  }
  forEach(callback: (value: number, key: TrackId, map: ReadonlyMap<TrackId, number>) => void, thisArg?: unknown) {
    for (const [track, others] of this.entries()) callback.call(thisArg, others, track, this)
  }
}

/** The user's own unskipped plays per track since `sinceMs`. */
export const ownPlaysSince = (plays: ReadonlyArray<PlayRow>, sinceMs: number): ReadonlyMap<TrackId, number> => {
  const own = new Map<TrackId, number>()
  for (const play of plays)
    if (!play.skipped && play.started_at_ms >= sinceMs) own.set(play.track_id, (own.get(play.track_id) ?? 0) + 1)
  return own
}

/** How the engine turns the shared counts into one user's signals (`sharedSignals`). */
export interface SharedDerivation {
  readonly popularity: (shared: SharedPlayCounts) => ReadonlyMap<TrackId, number>
  readonly crossUser: (shared: SharedPlayCounts, own: ReadonlyMap<TrackId, number>) => ReadonlyMap<TrackId, number>
}

/** Safe under interleaved rebuilds (the in-process engine): a read-only view per user. */
export const sharedDerivation = (): SharedDerivation => ({
  popularity: popularityCache(),
  crossUser: (shared, own) => new CrossUserCounts(shared.counts, own),
})

/**
 * For a worker, which computes one job at a time: one crossUser map per count, moved from one user to the
 * next by undoing the last user's own plays and subtracting this one's (a few hundred entries, not ~100k).
 * The engine remembers how it resolved a map's ids per map object, so the same object from user to user
 * keeps that memo warm. The map answered is only valid until the next call.
 */
export const patchedSharedDerivation = (): SharedDerivation => {
  let held:
    | {
        readonly version: string
        readonly counts: ReadonlyMap<TrackId, number>
        readonly map: Map<TrackId, number>
        adjusted: ReadonlyMap<TrackId, number>
      }
    | undefined
  const set = (map: Map<TrackId, number>, track: TrackId, others: number) => {
    if (others > 0) map.set(track, others)
    else map.delete(track)
  }
  return {
    popularity: popularityCache(),
    crossUser: (shared, own) => {
      if (held === undefined || held.version !== shared.version) {
        const map = new Map<TrackId, number>()
        for (const [track, count] of shared.counts) if (count > 0) map.set(track, count)
        held = { version: shared.version, counts: shared.counts, map, adjusted: new Map() }
      }
      const { counts, map } = held
      for (const track of held.adjusted.keys()) if (!own.has(track)) set(map, track, counts.get(track) ?? 0)
      for (const [track, mine] of own) {
        const count = counts.get(track)
        if (count !== undefined) set(map, track, count - mine)
      }
      held.adjusted = own
      return map
    },
  }
}

/** `signals` with popularity and crossUser derived from `sharedPlays` where they are not given. */
export const sharedSignals = (
  signals: EngineSignals,
  plays: ReadonlyArray<PlayRow>,
  derive: SharedDerivation,
): EngineSignals => {
  const { sharedPlays, ...rest } = signals
  if (sharedPlays === undefined) return rest
  return {
    ...rest,
    popularity: rest.popularity ?? derive.popularity(sharedPlays),
    crossUser: rest.crossUser ?? derive.crossUser(sharedPlays, ownPlaysSince(plays, sharedPlays.sinceMs)),
  }
}
