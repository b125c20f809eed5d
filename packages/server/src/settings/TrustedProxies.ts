import {
  addressWithoutHops,
  DEFAULT_TRUSTED_HOPS,
  hopsFromSetting,
  normalizeSocketPeer,
  parseForwardedChain,
  resolveClientAddress,
  TrustedProxiesView,
} from "@tonearm/core"
import { Cause, Effect, Option } from "effect"
import { currentDate } from "../clock.js"
import type { ConnectionFacts } from "../http/connection.js"
import { SettingsRepository } from "./SettingsRepository.js"

const HOPS_KEY = "trusted_proxy_hops"

/** The operator's hop setting, read at every request (spec Authentication 5). */
export class TrustedProxies extends Effect.Service<TrustedProxies>()("@tonearm/server/TrustedProxies", {
  effect: Effect.gen(function* () {
    const settings = yield* SettingsRepository

    /** A store that cannot be read, or a malformed value, yields the default; never a failure. */
    const currentHops: Effect.Effect<number> = settings.read(HOPS_KEY).pipe(
      Effect.map(Option.match({ onNone: () => DEFAULT_TRUSTED_HOPS, onSome: hopsFromSetting })),
      Effect.catchAllCause((cause) =>
        Effect.logWarning(
          `trusted-proxy setting unreadable (${Cause.squash(cause)}); using the default of ${DEFAULT_TRUSTED_HOPS}`,
        ).pipe(Effect.as(DEFAULT_TRUSTED_HOPS)),
      ),
    )

    const describeWith = (hops: number, connection: ConnectionFacts): TrustedProxiesView => {
      const forwardedChain = parseForwardedChain(connection.forwardedFor)
      const socketPeer = normalizeSocketPeer(connection.socketPeer)
      return new TrustedProxiesView({
        hops,
        resolved_address: resolveClientAddress({ hops, forwardedChain, socketPeer }),
        forwarded_chain: [...forwardedChain],
        socket_peer: socketPeer,
        implied_proxy_count: forwardedChain.length,
      })
    }

    /**
     * The address sessions record for this connection under the current setting. A request with no
     * X-Forwarded-For resolves to its socket peer under every setting, so it skips the read (one round trip of
     * every authenticated request made straight to the server).
     */
    const clientAddress = (connection: ConnectionFacts) => {
      const forwardedChain = parseForwardedChain(connection.forwardedFor)
      const socketPeer = normalizeSocketPeer(connection.socketPeer)
      const known = addressWithoutHops({ forwardedChain, socketPeer })
      return known !== undefined
        ? Effect.succeed(known)
        : Effect.map(currentHops, (hops) => resolveClientAddress({ hops, forwardedChain, socketPeer }))
    }

    const describe = (connection: ConnectionFacts) => Effect.map(currentHops, (hops) => describeWith(hops, connection))

    /** Stores the new setting and recomputes this request under it. */
    const setHops = (hops: number, connection: ConnectionFacts) =>
      Effect.gen(function* () {
        yield* settings.write(HOPS_KEY, hops, yield* currentDate)
        return describeWith(hops, connection)
      })

    return { currentHops, clientAddress, describe, setHops } as const
  }),
  dependencies: [SettingsRepository.Default],
}) {}
