import {
  type ArtistId,
  DeckEntry,
  DiscoverDeck,
  Internal,
  type Mbid,
  type SnoozeRequest,
  Suggestion,
  type UserId,
} from "@tonearm/core"
import {
  discoverSuggestions,
  EMPTY_TASTE_PROFILE,
  SUGGESTION_SEED_ARTISTS,
  SUGGESTIONS_OVERFETCH,
  SUGGESTIONS_SIZE,
  snoozedUntil,
  suggestionPool,
  type TasteProfile,
} from "@tonearm/recommend"
import { Effect, Option } from "effect"
import { currentDate } from "../clock.js"
import { LibraryService } from "../library/index.js"
import { PlaylistsService } from "../playlists/index.js"
import { RequestsService } from "../requests/index.js"
import { RebuildService } from "./RebuildService.js"
import { SnoozeRepository } from "./SnoozeRepository.js"
import { SuggestionSources, similarFromAll } from "./SuggestionSources.js"
import { TasteProfileRepository } from "./TasteProfileRepository.js"
import { TuningService } from "./TuningService.js"

/** The key a suggestion (and so a snooze) uses for an artist: its MusicBrainz id, else its artist id. */
export const suggestionKeyOf = (artist: { readonly id: ArtistId; readonly mbid: string | null }): string =>
  artist.mbid ?? artist.id

/**
 * Discover (spec "Discover and playlists"): artist suggestions ranked by rule 5, the track deck of rule 6,
 * and per-user snoozes that park a suggested artist until their end.
 */
export class DiscoverService extends Effect.Service<DiscoverService>()("@tonearm/server/DiscoverService", {
  effect: Effect.gen(function* () {
    const snoozeRows = yield* SnoozeRepository
    const profiles = yield* TasteProfileRepository
    const tuning = yield* TuningService
    const rebuilds = yield* RebuildService
    const playlists = yield* PlaylistsService
    const library = yield* LibraryService
    const sources = yield* SuggestionSources
    const requests = yield* RequestsService

    const snooze = Effect.fn("DiscoverService.snooze")(function* (user: UserId, mbid: Mbid, request: SnoozeRequest) {
      const now = yield* currentDate
      const { discovery } = yield* tuning.current
      const until = new Date(snoozedUntil(now.getTime(), request.days, discovery))
      return yield* snoozeRows.upsert(user, mbid, request.name, until, now)
    })

    const unsnooze = Effect.fn("DiscoverService.unsnooze")(function* (user: UserId, mbid: Mbid) {
      yield* snoozeRows.remove(user, mbid)
    })

    /** The caller's snoozes still running: one whose end is reached no longer counts. */
    const snoozes = Effect.fn("DiscoverService.snoozes")(function* (user: UserId) {
      return yield* snoozeRows.active(user, yield* currentDate)
    })

    const activeKeys = (user: UserId) =>
      Effect.map(snoozes(user), (rows) => new Set<string>(rows.map((row) => row.candidate_mbid)))

    /** The stored taste profile; a user never rebuilt is rebuilt once first (the daily run does the rest). */
    const profileOf = (user: UserId) =>
      Effect.gen(function* () {
        const stored = yield* profiles.load(user)
        if (Option.isSome(stored)) return stored.value.profile
        yield* rebuilds.rebuild(user)
        return Option.match(yield* profiles.load(user), {
          onNone: () => EMPTY_TASTE_PROFILE,
          onSome: (built) => built.profile,
        })
      })

    /**
     * Rule 5 over the over-fetched pool of the user's strongest artists' similar artists, then snoozes, then
     * diversity. No profile (or no tags) ranks by similarity alone; a failing overlap computation is a 500.
     */
    const suggestions = Effect.fn("DiscoverService.suggestions")(function* (user: UserId) {
      const profile: TasteProfile = yield* profileOf(user)
      const seeds = [...profile.artists]
        .filter(([, weight]) => weight > 0)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, SUGGESTION_SEED_ARTISTS)
        .map(([id]) => id)
      if (seeds.length === 0) return []
      const [similar, known, snoozed, current] = yield* Effect.all(
        [
          similarFromAll(sources, seeds, SUGGESTIONS_SIZE * SUGGESTIONS_OVERFETCH),
          // The user's own artists by MusicBrainz id, so a provider cannot suggest them back.
          Effect.map(
            library.artistsByIds([...profile.artists.keys()]),
            (artists) => new Set(artists.map(suggestionKeyOf)),
          ),
          activeKeys(user),
          tuning.current,
        ],
        { concurrency: 4 },
      )
      const ranked = yield* Effect.try({
        try: () =>
          discoverSuggestions({
            pool: suggestionPool({ profile, similarOf: (artist) => similar.get(artist) ?? [], known }),
            profile,
            discovery: current.discovery,
            snoozed,
          }),
        catch: (cause) => cause,
      }).pipe(
        Effect.catchAll((cause) =>
          Effect.logError("suggestion ranking (tag overlap) failed", cause).pipe(
            Effect.zipRight(Effect.fail(new Internal({ message: "internal error" }))),
          ),
        ),
      )
      // Art from the manager's artist lookup, resolved now and never cached; absent when it has none.
      const images = yield* requests.artistImages(ranked.map((entry) => entry.mbid))
      return ranked.map((entry) => {
        const image = images.get(entry.mbid)
        return new Suggestion({ ...entry, tags: [...entry.tags], ...(image === undefined ? {} : { image_url: image }) })
      })
    })

    /**
     * The user's current Discover snapshot with its stamped pick kinds (rule 6); a user never rebuilt is
     * rebuilt once first. Artists snoozed since the snapshot was built leave it at once.
     */
    const deck = Effect.fn("DiscoverService.deck")(function* (user: UserId) {
      if (Option.isNone(yield* profiles.load(user))) yield* rebuilds.rebuild(user)
      const detail = yield* playlists.detail(yield* playlists.systemPlaylist(user, "discover"))
      const snoozed = yield* activeKeys(user)
      const keys =
        snoozed.size === 0
          ? new Map<string, string>()
          : new Map(
              (yield* library.artistsByIds([...new Set(detail.tracks.map((entry) => entry.track.artist_id))])).map(
                (artist) => [artist.id as string, suggestionKeyOf(artist)],
              ),
            )
      return new DiscoverDeck({
        tracks: detail.tracks.flatMap((entry) => {
          if (entry.pick_kind === null) return []
          const key = keys.get(entry.track.artist_id)
          if (key !== undefined && snoozed.has(key)) return []
          return [new DeckEntry({ pick_kind: entry.pick_kind, track: entry.track })]
        }),
      })
    })

    return { snooze, unsnooze, snoozes, suggestions, deck, activeKeys } as const
  }),
  dependencies: [SnoozeRepository.Default, TasteProfileRepository.Default],
}) {}
