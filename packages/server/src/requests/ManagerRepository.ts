import { SqlClient } from "@effect/sql"
import { ManagerSettings } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

const EMPTY = new ManagerSettings({
  url: null,
  api_key: null,
  root_folder_path: null,
  quality_profile_id: null,
  metadata_profile_id: null,
  auto_approve: false,
})

/** `manager_settings`: one row, the music-acquisition manager's connection and defaults. */
export class ManagerRepository extends Effect.Service<ManagerRepository>()("@tonearm/server/ManagerRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const load = sql`
      SELECT url, api_key, root_folder_path, quality_profile_id, metadata_profile_id, auto_approve
      FROM manager_settings`.pipe(
      Effect.flatMap(decodeRows(Schema.Struct(ManagerSettings.fields))),
      Effect.map((rows) => (rows[0] === undefined ? EMPTY : new ManagerSettings(rows[0]))),
      orInternal("ManagerRepository.load"),
    )

    const save = (settings: ManagerSettings, now: Date) =>
      sql`
        INSERT INTO manager_settings (singleton, url, api_key, root_folder_path, quality_profile_id,
                                      metadata_profile_id, auto_approve, updated_at)
        VALUES (true, ${settings.url}, ${settings.api_key}, ${settings.root_folder_path},
                ${settings.quality_profile_id}, ${settings.metadata_profile_id}, ${settings.auto_approve}, ${now})
        ON CONFLICT (singleton) DO UPDATE SET
          url = EXCLUDED.url, api_key = EXCLUDED.api_key, root_folder_path = EXCLUDED.root_folder_path,
          quality_profile_id = EXCLUDED.quality_profile_id, metadata_profile_id = EXCLUDED.metadata_profile_id,
          auto_approve = EXCLUDED.auto_approve, updated_at = EXCLUDED.updated_at`.pipe(
        Effect.asVoid,
        orInternal("ManagerRepository.save"),
      )

    return { load, save } as const
  }),
}) {}
