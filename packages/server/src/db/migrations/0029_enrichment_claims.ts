import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Enrichment claims after a crash (issue 29 item 4): `enrichment_state.claim_generation` is the generation of the
 * `enrichment` lease under which a replica claimed a pending row, null when no one holds it. The replica that next
 * takes the lease hands back every row claimed under an older generation at once (its holder is dead or stopped),
 * instead of waiting for the claim's five minutes. Written only by `enrichment/EnrichmentRepository.ts`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE enrichment_state ADD COLUMN claim_generation bigint`
  yield* sql`
    CREATE INDEX enrichment_state_claimed_idx ON enrichment_state (claim_generation)
    WHERE claim_generation IS NOT NULL`
})
