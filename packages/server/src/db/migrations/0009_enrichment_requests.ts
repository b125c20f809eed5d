import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Enrichment and acquisition (issue 12): provider settings and the global version counter, the durable
 * per-entity-and-provider enrichment state, enriched tags, cached similar artists, the manager's settings
 * and acquisition requests. Foreign keys point at the `indexed_*` tables (the plain names are views).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE enrichment_providers (
      id text PRIMARY KEY,
      enabled boolean NOT NULL DEFAULT false,
      api_key text,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE enrichment_settings (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      version integer NOT NULL DEFAULT 0
    )`
  yield* sql`INSERT INTO enrichment_settings DEFAULT VALUES`
  // One row per (provider, album) or (provider, artist): pending until the provider answered (settled) or
  // gave up after retries (failed). entity_updated_at is the entity's updated_at when the row was opened, so
  // a rescanned (changed) entity is re-opened once and a settled one is never fetched twice.
  yield* sql`
    CREATE TABLE enrichment_state (
      id bigserial PRIMARY KEY,
      provider text NOT NULL,
      album_id uuid REFERENCES indexed_albums (id) ON DELETE CASCADE,
      artist_id uuid REFERENCES indexed_artists (id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('pending', 'settled', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      due_at timestamptz NOT NULL,
      entity_updated_at timestamptz NOT NULL,
      last_error text,
      settled_at timestamptz,
      CHECK ((album_id IS NULL) <> (artist_id IS NULL))
    )`
  yield* sql`CREATE UNIQUE INDEX enrichment_state_album_key ON enrichment_state (provider, album_id) WHERE album_id IS NOT NULL`
  yield* sql`CREATE UNIQUE INDEX enrichment_state_artist_key ON enrichment_state (provider, artist_id) WHERE artist_id IS NOT NULL`
  yield* sql`CREATE INDEX enrichment_state_due_idx ON enrichment_state (due_at) WHERE status = 'pending'`
  yield* sql`
    CREATE TABLE enriched_tags (
      provider text NOT NULL,
      album_id uuid REFERENCES indexed_albums (id) ON DELETE CASCADE,
      artist_id uuid REFERENCES indexed_artists (id) ON DELETE CASCADE,
      tag text NOT NULL CHECK (tag <> ''),
      weight real NOT NULL CHECK (weight > 0 AND weight <= 1),
      fetched_at timestamptz NOT NULL,
      CHECK ((album_id IS NULL) <> (artist_id IS NULL))
    )`
  yield* sql`CREATE UNIQUE INDEX enriched_tags_album_key ON enriched_tags (album_id, provider, tag) WHERE album_id IS NOT NULL`
  yield* sql`CREATE UNIQUE INDEX enriched_tags_artist_key ON enriched_tags (artist_id, provider, tag) WHERE artist_id IS NOT NULL`
  yield* sql`
    CREATE TABLE similar_artist_cache (
      source text NOT NULL,
      seed_mbid text NOT NULL,
      candidates jsonb NOT NULL,
      fetched_at timestamptz NOT NULL,
      PRIMARY KEY (source, seed_mbid)
    )`
  yield* sql`
    CREATE TABLE manager_settings (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      url text,
      api_key text,
      root_folder_path text,
      quality_profile_id integer,
      metadata_profile_id integer,
      auto_approve boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE acquisition_requests (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('artist', 'album')),
      mbid text NOT NULL,
      name text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'approved', 'available', 'cancelled', 'rejected')),
      created_at timestamptz NOT NULL,
      decided_at timestamptz,
      decided_by uuid REFERENCES users (id) ON DELETE SET NULL,
      manager_add_confirmed_at timestamptz,
      manager_attempts integer NOT NULL DEFAULT 0,
      manager_last_attempt_at timestamptz,
      manager_last_error text,
      reason text
    )`
  // No duplicate for an MBID while a request for it is open (spec "States and transitions").
  yield* sql`CREATE UNIQUE INDEX acquisition_requests_open_mbid ON acquisition_requests (mbid) WHERE status IN ('pending', 'approved')`
  yield* sql`CREATE INDEX acquisition_requests_user_idx ON acquisition_requests (user_id, created_at DESC)`
  yield* sql`CREATE INDEX acquisition_requests_unconfirmed_idx ON acquisition_requests (manager_last_attempt_at NULLS FIRST) WHERE status = 'approved' AND manager_add_confirmed_at IS NULL`
})
