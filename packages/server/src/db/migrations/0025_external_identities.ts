import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * External identities (issue 29 item 7): an OpenID Connect subject of an issuer, linked to the account it signs in
 * as. Deleting the account deletes its links. Written only by `accounts/IdentityRepository.ts`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE external_identities (
      issuer text NOT NULL,
      subject text NOT NULL,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (issuer, subject)
    )`
  yield* sql`CREATE INDEX external_identities_user_idx ON external_identities (user_id)`
})
