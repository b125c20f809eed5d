import { type ArtistId, NotFound, SimilarArtist } from "@tonearm/core"
import { Effect } from "effect"
import { LibraryService } from "../library/index.js"
import { SuggestionSources, similarFromAll } from "./SuggestionSources.js"

/** How many similar artists `GET /api/artists/{id}/similar` lists. */
export const SIMILAR_ARTISTS_LIMIT = 30

/**
 * `GET /api/artists/{id}/similar`: in-library artists ranked by similarity, each once whichever sources
 * named it (the sources blended by rank: `similarFromAll`), the seed artist itself left out.
 */
export class SimilarArtistsService extends Effect.Service<SimilarArtistsService>()(
  "@tonearm/server/SimilarArtistsService",
  {
    effect: Effect.gen(function* () {
      const library = yield* LibraryService
      const sources = yield* SuggestionSources

      const similar = Effect.fn("SimilarArtistsService.similar")(function* (id: ArtistId) {
        if ((yield* library.artistsByIds([id])).length === 0)
          return yield* new NotFound({ message: "no such artist", resource: "artist" })
        const found = (yield* similarFromAll(sources, [id], SIMILAR_ARTISTS_LIMIT)).get(id) ?? []
        const best = new Map<string, number>()
        for (const candidate of found)
          if (candidate.artist_id !== undefined && candidate.artist_id !== id && candidate.score > 0)
            best.set(candidate.artist_id, Math.max(best.get(candidate.artist_id) ?? 0, candidate.score))
        const ranked = [...best].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, SIMILAR_ARTISTS_LIMIT)
        const artists = yield* library.artistsByIds(ranked.map(([artist]) => artist))
        return artists.map((artist) => new SimilarArtist({ ...artist, score: best.get(artist.id)! }))
      })

      return { similar } as const
    }),
  },
) {}
