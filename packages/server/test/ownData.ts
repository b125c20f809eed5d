import { Context, Effect, Layer } from "effect"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "./support/accounts.js"
import { scanNow } from "./support/library.js"

/**
 * The first account of the file's server, signed up once while the layer builds. Read-only for tests: a test
 * that needs a listener makes its own with `aUser`, so any test can run alone or in any order.
 */
export class Admin extends Context.Tag("test/Admin")<Admin, SignedIn>() {}

/** The admin account, signed up on the server the layer is given (the name defaults to "admin"). */
export const AdminLive = (username = "admin") => Layer.effect(Admin, signUpFirstAdmin(username))

/** Scans the server's library folder once while the layer builds (shared read-only fixture). */
export const ScannedLive = Layer.effectDiscard(Effect.asVoid(scanNow()))

let accounts = 0

/** A fresh listener for one test: a unique username (`prefix` + a counter), created by the admin, signed in. */
export const aUser = (prefix = "user") =>
  Effect.flatMap(Admin, (admin) => createAndLogIn(admin.client, `${prefix}-${++accounts}`))
