import { SqlClient } from "@effect/sql"
import type { WeightedTag } from "@tonearm/core"
import { Effect, Option, Schema } from "effect"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

export type EntityKind = "album" | "artist"

const ProviderRow = Schema.Struct({ id: Schema.String, enabled: Schema.Boolean, api_key: Schema.NullOr(Schema.String) })
export type ProviderRow = typeof ProviderRow.Type

/** A claimed row with what a provider needs to know about its entity (null fields: the entity is gone). */
const ClaimedRow = Schema.Struct({
  id: Schema.NumberFromString,
  provider: Schema.String,
  album_id: Schema.NullOr(Schema.String),
  artist_id: Schema.NullOr(Schema.String),
  attempts: Schema.Int,
  album_title: Schema.NullOr(Schema.String),
  album_mbid: Schema.NullOr(Schema.String),
  album_cover: Schema.NullOr(Schema.String),
  artist_name: Schema.NullOr(Schema.String),
  artist_mbid: Schema.NullOr(Schema.String),
  artist_art: Schema.NullOr(Schema.String),
})
export type ClaimedRow = typeof ClaimedRow.Type

const StatusCount = Schema.Struct({ provider: Schema.String, status: Schema.String, n: Schema.Int })

/**
 * Provider settings, the global version counter, the durable enrichment state (one row per entity and
 * provider), enriched tags and the similar-artist cache. Rows are claimed with `FOR UPDATE SKIP LOCKED`, a due
 * time moved ahead and the generation of the `enrichment` lease the claimer holds, so replicas never fetch the
 * same row at once; the next holder of that lease hands a dead replica's claims back at once (`releaseOrphans`),
 * and the due time is the fallback for a claim that slipped past that.
 */
export class EnrichmentRepository extends Effect.Service<EnrichmentRepository>()(
  "@tonearm/server/EnrichmentRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      const providers = sql`SELECT id, enabled, api_key FROM enrichment_providers`.pipe(
        Effect.flatMap(decodeRows(ProviderRow)),
        orInternal("EnrichmentRepository.providers"),
      )

      const version = sql<{ version: number }>`SELECT version FROM enrichment_settings`.pipe(
        Effect.map((rows) => rows[0]?.version ?? 0),
        orInternal("EnrichmentRepository.version"),
      )

      const bumpVersion = sql<{ version: number }>`
        UPDATE enrichment_settings SET version = version + 1 RETURNING version`.pipe(
        Effect.map((rows) => rows[0]?.version ?? 0),
        orInternal("EnrichmentRepository.bumpVersion"),
      )

      /** Writes a provider's settings; answers whether `enabled` changed. */
      const saveProvider = (id: string, enabled: boolean | undefined, apiKey: string | null | undefined, now: Date) =>
        Effect.gen(function* () {
          const before = yield* sql<{ enabled: boolean }>`
            SELECT enabled FROM enrichment_providers WHERE id = ${id} FOR UPDATE`
          const was = before[0]?.enabled ?? false
          const next = enabled ?? was
          if (before.length === 0)
            yield* sql`
              INSERT INTO enrichment_providers (id, enabled, api_key, updated_at)
              VALUES (${id}, ${next}, ${apiKey ?? null}, ${now})`
          else if (apiKey !== undefined)
            yield* sql`UPDATE enrichment_providers SET enabled = ${next}, api_key = ${apiKey}, updated_at = ${now} WHERE id = ${id}`
          else yield* sql`UPDATE enrichment_providers SET enabled = ${next}, updated_at = ${now} WHERE id = ${id}`
          return next !== was
        }).pipe(orInternal("EnrichmentRepository.saveProvider"))

      /**
       * Opens a pending row for every present album (or artist) the provider has none for, and re-opens the
       * rows of entities changed since (a rescan moved their updated_at). Answers how many rows it opened.
       */
      const seed = (provider: string, kind: EntityKind, now: Date) =>
        Effect.gen(function* () {
          const inserted =
            kind === "album"
              ? yield* sql`
                  INSERT INTO enrichment_state (provider, album_id, status, due_at, entity_updated_at)
                  SELECT ${provider}, a.id, 'pending', ${now}, a.updated_at FROM albums a
                  WHERE NOT EXISTS (SELECT 1 FROM enrichment_state s WHERE s.provider = ${provider} AND s.album_id = a.id)
                  ON CONFLICT (provider, album_id) WHERE album_id IS NOT NULL DO NOTHING
                  RETURNING 1`
              : yield* sql`
                  INSERT INTO enrichment_state (provider, artist_id, status, due_at, entity_updated_at)
                  SELECT ${provider}, a.id, 'pending', ${now}, a.updated_at FROM artists a
                  WHERE NOT EXISTS (SELECT 1 FROM enrichment_state s WHERE s.provider = ${provider} AND s.artist_id = a.id)
                  ON CONFLICT (provider, artist_id) WHERE artist_id IS NOT NULL DO NOTHING
                  RETURNING 1`
          const reopened =
            kind === "album"
              ? yield* sql`
                  UPDATE enrichment_state s SET status = 'pending', attempts = 0, due_at = ${now},
                         entity_updated_at = a.updated_at, last_error = NULL
                  FROM albums a
                  WHERE s.album_id = a.id AND s.provider = ${provider} AND a.updated_at > s.entity_updated_at
                  RETURNING 1`
              : yield* sql`
                  UPDATE enrichment_state s SET status = 'pending', attempts = 0, due_at = ${now},
                         entity_updated_at = a.updated_at, last_error = NULL
                  FROM artists a
                  WHERE s.artist_id = a.id AND s.provider = ${provider} AND a.updated_at > s.entity_updated_at
                  RETURNING 1`
          return inserted.length + reopened.length
        }).pipe(orInternal("EnrichmentRepository.seed"))

      /**
       * Takes up to `limit` due rows of one provider for this replica until `leaseUntil`, under generation
       * `lease.generation` of lease `lease.name`: nothing when that generation is no longer the live one (a replica
       * that lost the lease while stalled claims no more).
       */
      const claim = (
        provider: string,
        now: Date,
        leaseUntil: Date,
        limit: number,
        lease: { readonly name: string; readonly generation: number },
      ) =>
        sql`
          WITH claimed AS (
            UPDATE enrichment_state SET due_at = ${leaseUntil}, claim_generation = ${lease.generation}
            WHERE id IN (
              SELECT id FROM enrichment_state
              WHERE status = 'pending' AND provider = ${provider} AND due_at <= ${now}
                AND EXISTS (SELECT 1 FROM leases WHERE name = ${lease.name} AND generation = ${lease.generation}
                            AND expires_at > clock_timestamp())
              ORDER BY due_at, id LIMIT ${limit}
              FOR UPDATE SKIP LOCKED)
            RETURNING id, provider, album_id, artist_id, attempts)
          SELECT c.id::text AS id, c.provider, c.album_id, c.artist_id, c.attempts,
                 al.title AS album_title, al.mbid AS album_mbid, al.cover_art_source AS album_cover,
                 COALESCE(ar.name, alar.name) AS artist_name, COALESCE(ar.mbid, alar.mbid) AS artist_mbid,
                 ar.art_source AS artist_art
          FROM claimed c
          LEFT JOIN albums al ON al.id = c.album_id
          LEFT JOIN artists alar ON alar.id = al.artist_id
          LEFT JOIN artists ar ON ar.id = c.artist_id
          ORDER BY c.id`.pipe(Effect.flatMap(decodeRows(ClaimedRow)), orInternal("EnrichmentRepository.claim"))

      /** Claimed rows this replica will not work after all: due again now. */
      const release = (ids: ReadonlyArray<number>) =>
        ids.length === 0
          ? Effect.void
          : sql`
              UPDATE enrichment_state SET due_at = now(), claim_generation = NULL
              WHERE id = ANY(${ids as Array<number>}::bigint[]) AND status = 'pending'`.pipe(
              Effect.asVoid,
              orInternal("EnrichmentRepository.release"),
            )

      /**
       * Rows still claimed under another generation than the lease's holder now has: their claimer stopped holding
       * the lease (killed, or cut off), so they are due again now, at the front of their provider's line (work that
       * was under way goes first). Answers how many.
       */
      const releaseOrphans = (generation: number) =>
        sql`
          UPDATE enrichment_state s
          SET due_at = LEAST(now(), (SELECT min(w.due_at) FROM enrichment_state w
                                     WHERE w.provider = s.provider AND w.status = 'pending'
                                       AND w.claim_generation IS NULL)),
              claim_generation = NULL
          WHERE claim_generation IS NOT NULL AND claim_generation <> ${generation} AND status = 'pending'
          RETURNING 1`.pipe(
          Effect.map((rows) => rows.length),
          orInternal("EnrichmentRepository.releaseOrphans"),
        )

      const settle = (id: number, now: Date) =>
        sql`
          UPDATE enrichment_state SET status = 'settled', attempts = attempts + 1, settled_at = ${now},
                 last_error = NULL, due_at = ${now}, claim_generation = NULL
          WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("EnrichmentRepository.settle"))

      const retryLater = (id: number, attempts: number, dueAt: Date, error: string) =>
        sql`
          UPDATE enrichment_state SET attempts = ${attempts}, due_at = ${dueAt}, last_error = ${error.slice(0, 500)},
                 claim_generation = NULL
          WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("EnrichmentRepository.retryLater"))

      const fail = (id: number, attempts: number, now: Date, error: string) =>
        sql`
          UPDATE enrichment_state SET status = 'failed', attempts = ${attempts}, settled_at = ${now},
                 last_error = ${error.slice(0, 500)}, claim_generation = NULL
          WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("EnrichmentRepository.fail"))

      /** One provider's tags of one entity, replacing what it said before. */
      const storeTags = (provider: string, kind: EntityKind, id: string, tags: ReadonlyArray<WeightedTag>, now: Date) =>
        Effect.gen(function* () {
          if (kind === "album") yield* sql`DELETE FROM enriched_tags WHERE provider = ${provider} AND album_id = ${id}`
          else yield* sql`DELETE FROM enriched_tags WHERE provider = ${provider} AND artist_id = ${id}`
          if (tags.length === 0) return
          yield* sql`
            INSERT INTO enriched_tags (provider, album_id, artist_id, tag, weight, fetched_at)
            SELECT ${provider}, ${kind === "album" ? id : null}::uuid, ${kind === "artist" ? id : null}::uuid,
                   t.tag, t.weight, ${now}
            FROM unnest(${tags.map((tag) => tag.name)}::text[], ${tags.map((tag) => tag.weight)}::real[]) AS t (tag, weight)
            ON CONFLICT DO NOTHING`
        }).pipe(sql.withTransaction, orInternal("EnrichmentRepository.storeTags"))

      /** Research (spec "Administration"): every settled or failed row is due again. */
      const reopenAll = (now: Date) =>
        sql`
          UPDATE enrichment_state SET status = 'pending', attempts = 0, due_at = ${now}, last_error = NULL
          WHERE status IN ('settled', 'failed') RETURNING 1`.pipe(
          Effect.map((rows) => rows.length),
          orInternal("EnrichmentRepository.reopenAll"),
        )

      /** An entity got a MusicBrainz id: providers that need one look again. */
      const reopenEntity = (kind: EntityKind, id: string, providers: ReadonlyArray<string>, now: Date) =>
        (kind === "album"
          ? sql`
              UPDATE enrichment_state SET status = 'pending', attempts = 0, due_at = ${now}
              WHERE album_id = ${id} AND provider = ANY(${providers as Array<string>}::text[]) AND status <> 'pending'`
          : sql`
              UPDATE enrichment_state SET status = 'pending', attempts = 0, due_at = ${now}
              WHERE artist_id = ${id} AND provider = ANY(${providers as Array<string>}::text[]) AND status <> 'pending'`
        ).pipe(Effect.asVoid, orInternal("EnrichmentRepository.reopenEntity"))

      /** Cover refetch: the cover providers' rows of every album still without a cover are due again. */
      const reopenMissingCovers = (providers: ReadonlyArray<string>, now: Date) =>
        sql`
          UPDATE enrichment_state s SET status = 'pending', attempts = 0, due_at = ${now}, last_error = NULL
          FROM albums a
          WHERE s.album_id = a.id AND a.cover_art_source IS NULL AND s.status <> 'pending'
            AND s.provider = ANY(${providers as Array<string>}::text[])
          RETURNING 1`.pipe(
          Effect.map((rows) => rows.length),
          orInternal("EnrichmentRepository.reopenMissingCovers"),
        )

      /** Rows still pending for these providers (a drain is over when none are). */
      const pendingCount = (providers: ReadonlyArray<string>) =>
        sql<{ n: number }>`
          SELECT count(*)::int AS n FROM enrichment_state
          WHERE status = 'pending' AND provider = ANY(${providers as Array<string>}::text[])`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          orInternal("EnrichmentRepository.pendingCount"),
        )

      const statusCounts = sql`
        SELECT provider, status, count(*)::int AS n FROM enrichment_state GROUP BY provider, status`.pipe(
        Effect.flatMap(decodeRows(StatusCount)),
        orInternal("EnrichmentRepository.statusCounts"),
      )

      /**
       * Every enriched tag of present albums and artists, one weight per tag (the strongest provider's), as a JSON
       * array of `[album_id, artist_id, tag, weight]` that the recommendation engine's thread decodes. Ordered,
       * so the spelling `mergeTags` keeps for tags differing only in case is the same on every load ("Rock" over
       * "rock": byte order); the group's hash order differs between PostgreSQL builds.
       */
      const catalogTags = sql<{ tags: string }>`
        SELECT coalesce(json_agg(json_build_array(album_id, artist_id, tag, weight) ORDER BY tag COLLATE "C")::text,
                        '[]') AS tags
        FROM (SELECT album_id, artist_id, tag, max(weight)::float8 AS weight FROM enriched_tags
              GROUP BY album_id, artist_id, tag) g`.pipe(
        Effect.map((rows) => rows[0]?.tags ?? "[]"),
        orInternal("EnrichmentRepository.catalogTags"),
      )

      /** Changes whenever enriched tags do, so the engine re-prepares its catalog. */
      const tagsRevision = sql<{ revision: string }>`
        SELECT count(*)::text || ':' || COALESCE(extract(epoch FROM max(fetched_at))::text, '0') AS revision
        FROM enriched_tags`.pipe(
        Effect.map((rows) => rows[0]?.revision ?? "0"),
        orInternal("EnrichmentRepository.tagsRevision"),
      )

      const cachedSimilar = (source: string, seed: string, freshAfter: Date) =>
        sql<{ candidates: unknown }>`
          SELECT candidates FROM similar_artist_cache
          WHERE source = ${source} AND seed_mbid = ${seed} AND fetched_at > ${freshAfter}`.pipe(
          Effect.map((rows) => (rows.length === 0 ? Option.none() : Option.some(rows[0]!.candidates))),
          orInternal("EnrichmentRepository.cachedSimilar"),
        )

      const cacheSimilar = (source: string, seed: string, candidates: unknown, now: Date) =>
        sql`
          INSERT INTO similar_artist_cache (source, seed_mbid, candidates, fetched_at)
          VALUES (${source}, ${seed}, ${JSON.stringify(candidates)}::jsonb, ${now})
          ON CONFLICT (source, seed_mbid) DO UPDATE SET candidates = EXCLUDED.candidates, fetched_at = EXCLUDED.fetched_at`.pipe(
          Effect.asVoid,
          orInternal("EnrichmentRepository.cacheSimilar"),
        )

      /** When providers are switched off or on, cached answers are not trusted any more. */
      const forgetSimilar = (source: string) =>
        sql`DELETE FROM similar_artist_cache WHERE source = ${source}`.pipe(
          Effect.asVoid,
          orInternal("EnrichmentRepository.forgetSimilar"),
        )

      /** Library artists by MusicBrainz id (a provider's candidate may be in the library already). */
      const artistsByMbid = (mbids: ReadonlyArray<string>) =>
        mbids.length === 0
          ? Effect.succeed(new Map<string, string>())
          : sql<{ id: string; mbid: string }>`
              SELECT DISTINCT ON (mbid) id, mbid FROM artists WHERE mbid = ANY(${mbids as Array<string>}::text[])
              ORDER BY mbid, track_count DESC, id`.pipe(
              Effect.map((found) => new Map(found.map((row) => [row.mbid, row.id]))),
              orInternal("EnrichmentRepository.artistsByMbid"),
            )

      return {
        artistsByMbid,
        providers,
        version,
        bumpVersion,
        saveProvider,
        seed,
        claim,
        release,
        releaseOrphans,
        settle,
        retryLater,
        fail,
        storeTags,
        reopenAll,
        reopenEntity,
        reopenMissingCovers,
        pendingCount,
        statusCounts,
        catalogTags,
        tagsRevision,
        cachedSimilar,
        cacheSimilar,
        forgetSimilar,
      } as const
    }),
  },
) {}
