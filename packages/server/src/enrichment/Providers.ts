import { ConnectionTest, type WeightedTag, weightTags } from "@tonearm/core"
import { Effect, Option, Schema } from "effect"
import type { EntityKind } from "./EnrichmentRepository.js"
import { ProviderFailure, type ProviderHttp, ProviderNotFound } from "./ProviderHttp.js"

/** What a provider is asked about: an album (with its artist) or an artist. */
export interface EntityToEnrich {
  readonly kind: EntityKind
  readonly id: string
  /** The album title, or the artist name. */
  readonly name: string
  readonly artistName: string | null
  readonly mbid: string | null
}

/** What a provider found; every part optional. */
export interface Enriched {
  readonly tags?: ReadonlyArray<WeightedTag>
  readonly mbid?: string
  readonly cover?: { readonly bytes: Uint8Array; readonly extension: string }
  /** An artist's image. */
  readonly image?: { readonly bytes: Uint8Array; readonly extension: string }
}

/** A similar artist as a provider lists it. */
export interface SimilarArtist {
  readonly mbid: string
  readonly name: string
  /** in [0, 1] */
  readonly score: number
  readonly tags: ReadonlyArray<WeightedTag>
}

export type ProviderError = ProviderFailure | ProviderNotFound

/** One provider behind one interface: the registry entry's behaviour. */
export interface Provider {
  readonly id: "musicbrainz" | "lastfm" | "listenbrainz" | "coverartarchive"
  /** The entity kinds its enrichment rows are opened for. */
  readonly kinds: ReadonlyArray<EntityKind>
  /** Providers answering only for an entity with a MusicBrainz id look again once one is found. */
  readonly needsMbid: boolean
  readonly enrich: (entity: EntityToEnrich, apiKey: string | null) => Effect.Effect<Enriched, ProviderError>
  readonly test: (apiKey: string | null) => Effect.Effect<ConnectionTest>
  readonly similar?: (
    seed: { readonly mbid: string | null; readonly name: string },
    limit: number,
    apiKey: string | null,
  ) => Effect.Effect<ReadonlyArray<SimilarArtist>, ProviderError>
}

const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const isMbid = (value: string | null | undefined): value is string => typeof value === "string" && MBID.test(value)

/** A Lucene phrase for MusicBrainz search. */
const phrase = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase()

const answered = (effect: Effect.Effect<unknown, ProviderError>): Effect.Effect<ConnectionTest> =>
  effect.pipe(
    Effect.as(new ConnectionTest({ ok: true, message: "the provider answered" })),
    Effect.catchAll((error) =>
      Effect.succeed(
        new ConnectionTest({
          ok: false,
          message: error._tag === "ProviderNotFound" ? "the provider answered 404" : error.message,
        }),
      ),
    ),
  )

// --- MusicBrainz (ws/2, JSON) ---

const MbTag = Schema.Struct({ name: Schema.String, count: Schema.Number })
const MbTags = Schema.optionalWith(Schema.Array(MbTag), { default: () => [] })
const MbEntity = Schema.Struct({ id: Schema.String, tags: MbTags, genres: MbTags })
const MbArtistSearch = Schema.Struct({
  artists: Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String, score: Schema.Number, tags: MbTags })),
})
const MbReleaseSearch = Schema.Struct({
  releases: Schema.Array(
    Schema.Struct({ id: Schema.String, title: Schema.String, score: Schema.Number, tags: MbTags }),
  ),
})

/** A search hit is taken when MusicBrainz is this sure and the name matches. */
const MB_MIN_SCORE = 90

const musicbrainz = (http: ProviderHttp): Provider => {
  const base = `${http.settings.musicbrainz.baseUrl.replace(/\/+$/, "")}/ws/2`
  const get = <A, I>(path: string, params: Record<string, string>, schema: Schema.Schema<A, I>) =>
    http.getJson("musicbrainz", `${base}${path}`, { ...params, fmt: "json" }, schema)
  const tagsOf = (entity: {
    readonly tags: ReadonlyArray<{ name: string; count: number }>
    readonly genres?: ReadonlyArray<{ name: string; count: number }>
  }) => weightTags([...entity.tags, ...(entity.genres ?? [])])
  return {
    id: "musicbrainz",
    kinds: ["artist", "album"],
    needsMbid: false,
    enrich: (entity) =>
      Effect.gen(function* () {
        if (isMbid(entity.mbid)) {
          // "tags genres": URLSearchParams sends it as MusicBrainz documents it, `inc=tags+genres`.
          const found = yield* get(
            `/${entity.kind === "album" ? "release" : "artist"}/${entity.mbid}`,
            { inc: "tags genres" },
            MbEntity,
          )
          return { tags: tagsOf(found) }
        }
        if (entity.kind === "artist") {
          const hits = yield* get("/artist", { query: `artist:${phrase(entity.name)}`, limit: "1" }, MbArtistSearch)
          const hit = hits.artists[0]
          if (hit === undefined || hit.score < MB_MIN_SCORE || !sameName(hit.name, entity.name) || !isMbid(hit.id))
            return {}
          return { mbid: hit.id, tags: tagsOf(hit) }
        }
        const query =
          entity.artistName === null
            ? `release:${phrase(entity.name)}`
            : `release:${phrase(entity.name)} AND artist:${phrase(entity.artistName)}`
        const hits = yield* get("/release", { query, limit: "1" }, MbReleaseSearch)
        const hit = hits.releases[0]
        if (hit === undefined || hit.score < MB_MIN_SCORE || !sameName(hit.title, entity.name) || !isMbid(hit.id))
          return {}
        return { mbid: hit.id, tags: tagsOf(hit) }
      }),
    test: () => answered(get("/artist", { query: "artist:test", limit: "1" }, MbArtistSearch)),
  }
}

// --- Last.fm (2.0, JSON) ---

const LfmError = Schema.Struct({ error: Schema.Number, message: Schema.optional(Schema.String) })
const LfmTag = Schema.Struct({
  name: Schema.String,
  count: Schema.optional(Schema.Union(Schema.Number, Schema.NumberFromString)),
})
const oneOrMany = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.transform(Schema.Union(Schema.Array(item), item), Schema.Array(Schema.typeSchema(item)), {
    strict: false,
    decode: (value) => (Array.isArray(value) ? value : [value]),
    encode: (value) => value,
  })
const LfmTopTags = Schema.Struct({
  toptags: Schema.Struct({ tag: Schema.optionalWith(oneOrMany(LfmTag), { default: () => [] }) }),
})
const LfmImages = Schema.optionalWith(
  Schema.Array(Schema.Struct({ "#text": Schema.String, size: Schema.optional(Schema.String) })),
  { default: () => [] },
)
const LfmArtistInfo = Schema.Struct({ artist: Schema.Struct({ image: LfmImages }) })
/** Last.fm's grey star, answered for every artist since it stopped serving artist images: not an image of anyone. */
const LFM_PLACEHOLDER = "2a96cbd8b46e442fc41c2b86b821562f"
/** The largest image URL of a Last.fm image list, if any. */
const largestImage = (images: ReadonlyArray<{ readonly "#text": string }>) =>
  [...images].reverse().find((candidate) => candidate["#text"] !== "" && !candidate["#text"].includes(LFM_PLACEHOLDER))

const LfmAlbumInfo = Schema.Struct({
  album: Schema.Struct({
    tags: Schema.optional(
      Schema.Union(
        Schema.Struct({ tag: Schema.optionalWith(oneOrMany(LfmTag), { default: () => [] }) }),
        Schema.String,
      ),
    ),
    image: LfmImages,
  }),
})
const LfmSimilar = Schema.Struct({
  similarartists: Schema.Struct({
    artist: Schema.optionalWith(
      oneOrMany(
        Schema.Struct({
          name: Schema.String,
          mbid: Schema.optional(Schema.String),
          match: Schema.Union(Schema.Number, Schema.NumberFromString),
        }),
      ),
      { default: () => [] },
    ),
  }),
})

/** Last.fm's similar artists whose tags are looked up (one request each), most similar first. */
const LFM_TAGGED_CANDIDATES = 20

/** Tags listed without counts keep their order as relevance. */
const rankedTags = (tags: ReadonlyArray<{ name: string; count?: number | undefined }>) =>
  weightTags(tags.map((tag, index) => ({ name: tag.name, count: tag.count ?? tags.length - index })))

const lastfm = (http: ProviderHttp): Provider => {
  const url = `${http.settings.lastfm.baseUrl.replace(/\/+$/, "")}/2.0/`
  const call = <A, I>(
    params: Record<string, string>,
    apiKey: string | null,
    schema: Schema.Schema<A, I>,
  ): Effect.Effect<A, ProviderError> => {
    if (apiKey === null || apiKey === "")
      return Effect.fail(new ProviderFailure({ provider: "lastfm", message: "Last.fm needs an API key" }))
    const answer: Schema.Schema<
      { readonly _tag: "Error"; readonly error: typeof LfmError.Type } | { readonly _tag: "Ok"; readonly body: A },
      unknown
    > = Schema.Union(
      Schema.transform(LfmError, Schema.Any, {
        strict: false,
        decode: (error) => ({ _tag: "Error", error }),
        encode: (value) => value.error,
      }),
      Schema.transform(schema as Schema.Schema<A, unknown>, Schema.Any, {
        strict: false,
        decode: (body) => ({ _tag: "Ok", body }),
        encode: (value) => value.body,
      }),
    ) as never
    return http.getJson("lastfm", url, { ...params, api_key: apiKey, format: "json" }, answer).pipe(
      Effect.flatMap((decoded): Effect.Effect<A, ProviderError> => {
        if (decoded._tag === "Ok") return Effect.succeed(decoded.body)
        return decoded.error.error === 6
          ? Effect.fail(new ProviderNotFound({ provider: "lastfm" }))
          : Effect.fail(
              new ProviderFailure({
                provider: "lastfm",
                message: `Last.fm error ${decoded.error.error}: ${decoded.error.message ?? ""}`,
              }),
            )
      }),
    )
  }
  const artistParams = (artist: { readonly mbid: string | null; readonly name: string }): Record<string, string> =>
    isMbid(artist.mbid) ? { mbid: artist.mbid, artist: artist.name } : { artist: artist.name }
  const topTags = (artist: { readonly mbid: string | null; readonly name: string }, apiKey: string | null) =>
    Effect.map(call({ method: "artist.gettoptags", ...artistParams(artist) }, apiKey, LfmTopTags), (body) =>
      weightTags(body.toptags.tag.map((tag) => ({ name: tag.name, count: tag.count ?? 1 }))),
    )
  return {
    id: "lastfm",
    kinds: ["artist", "album"],
    needsMbid: false,
    enrich: (entity, apiKey) =>
      Effect.gen(function* () {
        if (entity.kind === "artist") {
          const tags = yield* topTags(entity, apiKey)
          const info = yield* call(
            { method: "artist.getinfo", ...artistParams(entity), autocorrect: "1" },
            apiKey,
            LfmArtistInfo,
          ).pipe(Effect.catchTag("ProviderNotFound", () => Effect.succeed({ artist: { image: [] } })))
          const picture = largestImage(info.artist.image)
          const image =
            picture === undefined
              ? undefined
              : yield* http.getImage("lastfm", picture["#text"]).pipe(
                  Effect.map(Option.some),
                  Effect.catchTag("ProviderNotFound", () => Effect.succeedNone),
                  Effect.map(Option.getOrUndefined),
                )
          return image === undefined ? { tags } : { tags, image }
        }
        if (entity.artistName === null) return {}
        const info = yield* call(
          { method: "album.getinfo", artist: entity.artistName, album: entity.name, autocorrect: "1" },
          apiKey,
          LfmAlbumInfo,
        )
        const tags = typeof info.album.tags === "object" ? rankedTags(info.album.tags.tag) : []
        const image = largestImage(info.album.image)
        const cover =
          image === undefined
            ? undefined
            : yield* http.getImage("lastfm", image["#text"]).pipe(
                Effect.map(Option.some),
                Effect.catchTag("ProviderNotFound", () => Effect.succeedNone),
                Effect.map(Option.getOrUndefined),
              )
        return cover === undefined ? { tags } : { tags, cover }
      }),
    test: (apiKey) =>
      apiKey === null || apiKey === ""
        ? Effect.succeed(new ConnectionTest({ ok: false, message: "Last.fm needs an API key" }))
        : answered(call({ method: "artist.gettoptags", artist: "Radiohead" }, apiKey, LfmTopTags)),
    similar: (seed, limit, apiKey) =>
      Effect.gen(function* () {
        const body = yield* call(
          { method: "artist.getsimilar", ...artistParams(seed), limit: String(limit) },
          apiKey,
          LfmSimilar,
        )
        const similar = body.similarartists.artist.flatMap((hit) =>
          isMbid(hit.mbid) ? [{ mbid: hit.mbid, name: hit.name, score: Math.min(1, Math.max(0, hit.match)) }] : [],
        )
        // Candidate tags for rule 5, each through the same throttle, for the most similar few only (one request
        // each); the rest and any failed lookup stay untagged, which keeps their similarity score as it is.
        return yield* Effect.forEach(
          similar,
          (hit, index) =>
            index >= LFM_TAGGED_CANDIDATES
              ? Effect.succeed({ ...hit, tags: [] })
              : topTags({ mbid: hit.mbid, name: hit.name }, apiKey).pipe(
                  Effect.orElseSucceed(() => []),
                  Effect.map((tags) => ({ ...hit, tags })),
                ),
          { concurrency: 2 },
        )
      }),
  }
}

// --- ListenBrainz (API and labs) ---

const LbArtistMetadata = Schema.Array(
  Schema.Struct({
    artist_mbid: Schema.String,
    name: Schema.optional(Schema.String),
    tag: Schema.optional(
      Schema.Struct({
        artist: Schema.optionalWith(Schema.Array(Schema.Struct({ tag: Schema.String, count: Schema.Number })), {
          default: () => [],
        }),
      }),
    ),
  }),
)
const LbSimilar = Schema.Array(Schema.Struct({ artist_mbid: Schema.String, name: Schema.String, score: Schema.Number }))
/** The similar-artist dataset ListenBrainz's own pages use. */
const LB_ALGORITHM = "session_based_days_7500_session_300_contribution_5_threshold_10_limit_100_filter_True_skip_30"
/** A known artist (Radiohead) for the connection test. */
const LB_TEST_MBID = "a74b1b7f-71a5-4011-9441-d0b5e4122711"

const listenbrainz = (http: ProviderHttp): Provider => {
  const api = http.settings.listenbrainz.baseUrl.replace(/\/+$/, "")
  const labs = http.settings.listenbrainzLabsUrl.replace(/\/+$/, "")
  const metadata = (mbids: ReadonlyArray<string>) =>
    http.getJson(
      "listenbrainz",
      `${api}/1/metadata/artist/`,
      { artist_mbids: mbids.join(","), inc: "tag" },
      LbArtistMetadata,
    )
  const tagsOf = (entry: (typeof LbArtistMetadata.Type)[number] | undefined) =>
    weightTags((entry?.tag?.artist ?? []).map((tag) => ({ name: tag.tag, count: tag.count })))
  return {
    id: "listenbrainz",
    kinds: ["artist"],
    needsMbid: true,
    enrich: (entity) =>
      isMbid(entity.mbid)
        ? Effect.map(metadata([entity.mbid]), (entries) => ({
            tags: tagsOf(entries.find((entry) => entry.artist_mbid === entity.mbid)),
          }))
        : Effect.succeed({}),
    test: () => answered(metadata([LB_TEST_MBID])),
    similar: (seed, limit) =>
      Effect.gen(function* () {
        if (!isMbid(seed.mbid)) return []
        const hits = (yield* http.getJson(
          "listenbrainz",
          `${labs}/similar-artists/json`,
          { artist_mbids: seed.mbid, algorithm: LB_ALGORITHM },
          LbSimilar,
        ))
          .filter((hit) => isMbid(hit.artist_mbid) && hit.artist_mbid !== seed.mbid)
          .slice(0, limit)
        const top = Math.max(0, ...hits.map((hit) => hit.score))
        // One metadata request tags every candidate (rule 5 needs candidate tags).
        const tags =
          hits.length === 0
            ? []
            : yield* metadata(hits.map((hit) => hit.artist_mbid)).pipe(Effect.orElseSucceed(() => []))
        return hits.map((hit) => ({
          mbid: hit.artist_mbid,
          name: hit.name,
          score: top > 0 ? hit.score / top : 0,
          tags: tagsOf(tags.find((entry) => entry.artist_mbid === hit.artist_mbid)),
        }))
      }),
  }
}

// --- Cover Art Archive ---

const coverartarchive = (http: ProviderHttp): Provider => {
  const base = http.settings.coverartarchive.baseUrl.replace(/\/+$/, "")
  return {
    id: "coverartarchive",
    kinds: ["album"],
    needsMbid: true,
    enrich: (entity) =>
      entity.kind === "album" && isMbid(entity.mbid)
        ? Effect.map(http.getImage("coverartarchive", `${base}/release/${entity.mbid}/front-500`), (cover) => ({
            cover,
          }))
        : Effect.succeed({}),
    // There is no request that proves the archive answers without naming a release it holds.
    test: () =>
      Effect.succeed(new ConnectionTest({ ok: false, message: "the Cover Art Archive has no connection test" })),
  }
}

/** Every external provider, in the order a drain visits them (MusicBrainz first: it finds the ids others need). */
export const makeProviders = (http: ProviderHttp): ReadonlyArray<Provider> => [
  musicbrainz(http),
  lastfm(http),
  listenbrainz(http),
  coverartarchive(http),
]
