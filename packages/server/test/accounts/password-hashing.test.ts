import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { hashPassword } from "../../src/accounts/credentials.js"
import { logIn, PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Issue 29 item 5: passwords are stored with scrypt at the configured cost (TONEARM_PASSWORD_HASH_COST, scrypt's p at
 * N=2^14, r=8; production default 5, OWASP's minimum) and a hash made cheaper is upgraded at the next sign-in.
 */
const storedHash = (username: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ password_hash: string }>`SELECT password_hash FROM users WHERE username = ${username}`,
      (rows) => rows[0]!.password_hash,
    ),
  )

layer(TestServerLive({ passwordHashCost: 3 }), { excludeTestServices: true })("password hashing", (it) => {
  it.effect("new passwords are scrypt at the configured cost; a cheaper stored hash is upgraded at sign-in", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* signUpFirstAdmin("ada")
      expect((yield* storedHash("ada")).split("$").slice(0, 4)).toEqual(["scrypt", "16384", "8", "3"])

      // An account stored under an older, cheaper setting.
      yield* sql`UPDATE users SET password_hash = ${yield* hashPassword(PASSWORD, 1)} WHERE username = 'ada'`
      expect((yield* storedHash("ada")).split("$")[3]).toBe("1")
      yield* logIn("ada")
      const upgraded = yield* storedHash("ada")
      expect(upgraded.split("$")[3]).toBe("3")
      // The upgraded hash still opens the account, and a wrong password still does not.
      yield* logIn("ada")
      expect(yield* storedHash("ada")).toBe(upgraded)
      expect((yield* logIn("ada", "not the password").pipe(Effect.flip))._tag).toBe("InvalidCredentials")
    }),
  )
})
