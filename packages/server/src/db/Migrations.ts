import { Migrator } from "@effect/sql"
import { Effect, Layer } from "effect"
import m0001 from "./migrations/0001_accounts.js"
import m0002 from "./migrations/0002_library.js"
import m0003 from "./migrations/0003_listening.js"
import m0004 from "./migrations/0004_recommendations.js"
import m0005 from "./migrations/0005_rebuild_schedule.js"
import m0006 from "./migrations/0006_missing_tracks.js"
import m0007 from "./migrations/0007_subsonic.js"
import m0008 from "./migrations/0008_moderation_diagnostics.js"
import m0009 from "./migrations/0009_enrichment_requests.js"
import m0010 from "./migrations/0010_browse_indexes.js"
import m0011 from "./migrations/0011_undated_album_count.js"
import m0012 from "./migrations/0012_library_version_index.js"
import m0013 from "./migrations/0013_taste_profile_json.js"
import m0014 from "./migrations/0014_library_version_shared_index.js"
import m0015 from "./migrations/0015_artist_credits.js"
import m0016 from "./migrations/0016_artist_sidecars_scan_skipped.js"
import m0017 from "./migrations/0017_search_documents.js"
import m0018 from "./migrations/0018_play_queue_index.js"
import m0019 from "./migrations/0019_listening_history.js"
import m0020 from "./migrations/0020_scrobbling.js"
import m0021 from "./migrations/0021_ratings.js"
import m0022 from "./migrations/0022_pick_reasons.js"
import m0023 from "./migrations/0023_smart_playlists.js"
import m0024 from "./migrations/0024_libraries.js"
import m0025 from "./migrations/0025_external_identities.js"
import m0026 from "./migrations/0026_leases.js"
import m0027 from "./migrations/0027_library_scans.js"
import m0028 from "./migrations/0028_rebuild_heartbeat.js"
import m0029 from "./migrations/0029_enrichment_claims.js"
import m0030 from "./migrations/0030_search_order_library.js"

/** Numbered, forward-only, statically imported so a bundle can't lose one. */
export const migrations = {
  "0001_accounts": m0001,
  "0002_library": m0002,
  "0003_listening": m0003,
  "0004_recommendations": m0004,
  "0005_rebuild_schedule": m0005,
  "0006_missing_tracks": m0006,
  "0007_subsonic": m0007,
  "0008_moderation_diagnostics": m0008,
  "0009_enrichment_requests": m0009,
  "0010_browse_indexes": m0010,
  "0011_undated_album_count": m0011,
  "0012_library_version_index": m0012,
  "0013_taste_profile_json": m0013,
  "0014_library_version_shared_index": m0014,
  "0015_artist_credits": m0015,
  "0016_artist_sidecars_scan_skipped": m0016,
  "0017_search_documents": m0017,
  "0018_play_queue_index": m0018,
  "0019_listening_history": m0019,
  "0020_scrobbling": m0020,
  "0021_ratings": m0021,
  "0022_pick_reasons": m0022,
  "0023_smart_playlists": m0023,
  "0024_libraries": m0024,
  "0025_external_identities": m0025,
  "0026_leases": m0026,
  "0027_library_scans": m0027,
  "0028_rebuild_heartbeat": m0028,
  "0029_enrichment_claims": m0029,
  "0030_search_order_library": m0030,
}

export const runMigrations = Migrator.make({})({ loader: Migrator.fromRecord(migrations) }).pipe(
  Effect.tap((applied) =>
    applied.length > 0
      ? Effect.logInfo(`applied migrations: ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`)
      : Effect.void,
  ),
)

export const MigrationsLive = Layer.effectDiscard(runMigrations)
