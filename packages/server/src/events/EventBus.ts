import {
  type EventData,
  type EventEnvelope,
  EventEnvelope as EventEnvelopeSchema,
  type EventKind,
  isDeliveredTo,
  type UserId,
} from "@tonearm/core"
import { Effect, Queue, Schema, type Scope } from "effect"
import { EventRepository } from "./EventRepository.js"

/** A subscriber that falls this far behind loses events; the publisher never waits for it. */
export const SUBSCRIBER_BUFFER = 256

/**
 * Open event streams per user on one replica (issue 29 item 6): a new one past this closes that user's oldest, so
 * one account's 500 streams cannot stall everyone else's. Sixteen covers many tabs and devices.
 */
export const STREAMS_PER_USER = 16

const decodeEnvelope = Schema.decodeUnknownOption(Schema.parseJson(EventEnvelopeSchema))

interface Subscriber {
  readonly userId: string
  readonly queue: Queue.Queue<EventEnvelope>
}

/**
 * Live events (spec "Events"). Publishing is a PostgreSQL NOTIFY, sent with the caller's transaction when
 * there is one (so a rolled-back change announces nothing); every replica LISTENs and hands each event to
 * its own subscribers' bounded queues, dropping for a subscriber whose queue is full.
 */
export class EventBus extends Effect.Service<EventBus>()("@tonearm/server/EventBus", {
  scoped: Effect.gen(function* () {
    const channel = yield* EventRepository
    const subscribers = new Set<Subscriber>()

    const deliver = (event: EventEnvelope) =>
      Effect.forEach(
        subscribers,
        (subscriber) => (isDeliveredTo(event, subscriber.userId) ? Queue.offer(subscriber.queue, event) : Effect.void),
        { discard: true },
      )

    /**
     * After a database outage the events sent meanwhile are lost: every open stream is ended, so each client
     * reconnects and refetches what it shows (the web player does on every reconnection).
     */
    const resyncEveryone = Effect.suspend(() => {
      const ended = [...subscribers]
      subscribers.clear()
      return Effect.forEach(ended, (subscriber) => Queue.shutdown(subscriber.queue), { discard: true })
    })

    // One LISTEN connection per replica, re-established with backoff if it drops.
    yield* channel
      .listen((payload) => {
        const event = decodeEnvelope(payload)
        return event._tag === "Some"
          ? deliver(event.value)
          : Effect.logWarning(`ignored a malformed event: ${payload.slice(0, 200)}`)
      }, resyncEveryone)
      .pipe(Effect.forkScoped)

    /** Best effort: a failure to publish is logged and never fails the change that caused it. */
    const publish = <K extends EventKind>(kind: K, userId: UserId | null, data: EventData<K>) => {
      const envelope: EventEnvelope = { kind, user_id: userId ?? "", data }
      return channel
        .notify(JSON.stringify(envelope))
        .pipe(Effect.catchAllCause((cause) => Effect.logWarning(`could not publish ${kind}`, cause)))
    }

    /** A bounded, dropping queue of the events this user may see, for as long as the scope lives. */
    const subscribe = (userId: UserId): Effect.Effect<Queue.Dequeue<EventEnvelope>, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.gen(function* () {
          const queue = yield* Queue.dropping<EventEnvelope>(SUBSCRIBER_BUFFER)
          const subscriber = { userId, queue }
          // Insertion order: the first of this user's found is their oldest stream.
          const theirs = [...subscribers].filter((other) => other.userId === userId)
          for (const oldest of theirs.slice(0, Math.max(0, theirs.length - STREAMS_PER_USER + 1))) {
            subscribers.delete(oldest)
            yield* Queue.shutdown(oldest.queue)
          }
          subscribers.add(subscriber)
          return subscriber
        }),
        (subscriber) =>
          Effect.sync(() => subscribers.delete(subscriber)).pipe(Effect.zipRight(Queue.shutdown(subscriber.queue))),
      ).pipe(Effect.map((subscriber) => subscriber.queue))

    const subscriberCount = Effect.sync(() => subscribers.size)

    return { publish, subscribe, subscriberCount } as const
  }),
  dependencies: [EventRepository.Default],
}) {}
