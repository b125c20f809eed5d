import type { ChangeOperation, SyncEntity, UserId } from "@tonearm/core"
import { Effect } from "effect"
import { type Change, ChangeLogRepository } from "./ChangeLogRepository.js"

export type { Change } from "./ChangeLogRepository.js"

/** The change-log rows for some entities of one kind: the one way every domain spells them. */
export const changesOf = (
  entity: SyncEntity,
  operation: ChangeOperation,
  ids: ReadonlyArray<string>,
  scope: UserId | null = null,
): ReadonlyArray<Change> => ids.map((entityId) => ({ entity, entityId, scope, operation }))

/**
 * The library change log that sync pages through: every domain that changes a synced entity records it
 * here, inside the transaction that made the change, so sync never sees one without the other. It imports
 * no other domain, so every domain may write to it and sync may read everything back.
 */
export class ChangeLog extends Effect.Service<ChangeLog>()("@tonearm/server/ChangeLog", {
  effect: Effect.gen(function* () {
    const repository = yield* ChangeLogRepository

    /** The same entity twice in one call keeps its last change. */
    const record = (changes: ReadonlyArray<Change>, now: Date) => {
      if (changes.length === 0) return Effect.void
      const unique = new Map<string, Change>()
      for (const change of changes) unique.set(`${change.entity}|${change.scope ?? ""}|${change.entityId}`, change)
      return repository.record([...unique.values()], now)
    }

    /** For changes whose log row must never fail the request that made them (likes): failures are logged. */
    const recordBestEffort = (changes: ReadonlyArray<Change>, now: Date) =>
      record(changes, now).pipe(
        Effect.catchAllCause((cause) => Effect.logError("could not write the library change log", cause)),
      )

    /** The next changes a user may see (the shared library and their own), in commit order. */
    const changesAfter = (user: UserId, seq: number, limit: number) => repository.changesAfter(user, seq, limit)

    return {
      record,
      recordBestEffort,
      changesAfter,
      libraryVersion: repository.libraryVersion,
      libraryModifiedAt: repository.libraryModifiedAt,
    } as const
  }),
  dependencies: [ChangeLogRepository.Default],
}) {}
