import { Clock, Effect } from "effect"

/** The current instant from Effect's Clock (tests move it with TestClock), as the `Date` pg expects. */
export const currentDate: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

export const daysBefore = (date: Date, days: number): Date => new Date(date.getTime() - days * 86_400_000)
export const minutesAfter = (date: Date, minutes: number): Date => new Date(date.getTime() + minutes * 60_000)
