import type { UserId } from "@tonearm/core"
import { Context, Effect } from "effect"

/**
 * What other domains want to hear about accounts, without accounts knowing them (the recommendations
 * scheduler keeps each user's 03:00 job). Called after the change is stored; a failure is logged by the
 * caller and never undoes the change. The default does nothing (a test or tool without a scheduler).
 */
export interface AccountLifecycleHooks {
  /** A new account (registration or admin creation), in its zone. */
  readonly userCreated: (user: UserId, timeZone: string) => Effect.Effect<void, unknown>
  /** The user's zone was just written. */
  readonly timezoneChanged: (user: UserId, timeZone: string) => Effect.Effect<void, unknown>
}

export class AccountLifecycle extends Context.Reference<AccountLifecycle>()("@tonearm/server/AccountLifecycle", {
  defaultValue: (): AccountLifecycleHooks => ({ userCreated: () => Effect.void, timezoneChanged: () => Effect.void }),
}) {}
