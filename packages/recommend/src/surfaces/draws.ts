import { Effect, Random } from "effect"

/**
 * Many random draws without a fiber step each. Effect's own `Random` service (`Random.make(seed)`, and the
 * default one) is a class whose `next` is `sync(() => PRNG.number())` and whose `nextIntBetween(min, max)`
 * is `sync(() => PRNG.integer(max − min) + min)`; drawing from that PRNG directly gives the very numbers
 * the effects would, in the same order, for a fraction of the cost (the Discover deck draws ~50k times).
 * It is used only for a service of exactly that class, after a probe on two fresh services of the same
 * seed has shown the two paths agree; any other `Random` is drawn through its effects.
 */
export interface Draws {
  /** a double in [0, 1), as `Random.next` */
  readonly next: () => number
  /** an integer in [min, max), as `Random.nextIntBetween` */
  readonly nextIntBetween: (min: number, max: number) => number
}

interface Prng {
  number(): number
  integer(max: number): number
}

const prngOf = (random: Random.Random): Prng | undefined => {
  const prng = (random as unknown as { readonly PRNG?: Partial<Prng> }).PRNG
  return typeof prng?.number === "function" && typeof prng.integer === "function" ? (prng as Prng) : undefined
}

let direct: { readonly constructor: unknown } | null | undefined

/** The class of Effect's own Random service when its PRNG can be drawn directly (probed once). */
const directClass = (): { readonly constructor: unknown } | null => {
  if (direct !== undefined) return direct
  const viaEffects = Random.make("tonearm draws probe")
  const viaPrng = Random.make("tonearm draws probe")
  const prng = prngOf(viaPrng)
  let agree = prng !== undefined && viaEffects.constructor === viaPrng.constructor
  if (agree && prng !== undefined) {
    const expected = Effect.runSync(
      Effect.all([
        viaEffects.next,
        viaEffects.nextIntBetween(3, 1_000),
        viaEffects.next,
        viaEffects.nextIntBetween(0, 7),
      ]),
    )
    const actual = [prng.number(), prng.integer(997) + 3, prng.number(), prng.integer(7)]
    agree = expected.every((value, i) => value === actual[i])
  }
  direct = agree ? { constructor: viaPrng.constructor } : null
  return direct
}

/** Synchronous draws from `random` when it is Effect's own service, else undefined. */
export const directDraws = (random: Random.Random): Draws | undefined => {
  const known = directClass()
  if (known === null || random.constructor !== known.constructor) return undefined
  const prng = prngOf(random)
  if (prng === undefined) return undefined
  return { next: () => prng.number(), nextIntBetween: (min, max) => prng.integer(max - min) + min }
}
