import {
  addressWithoutHops,
  DEFAULT_TRUSTED_HOPS,
  hopsFromSetting,
  inProxyList,
  loginThrottleAddresses,
  normalizeSocketPeer,
  parseForwardedChain,
  parseProxyList,
  resolveClientAddress,
  TrustedProxiesView,
} from "@tonearm/core"
import { Cause, Effect, Option } from "effect"
import { currentDate } from "../clock.js"
import { TonearmConfig } from "../config/TonearmConfig.js"
import type { ConnectionFacts } from "../http/connection.js"
import { SettingsRepository } from "./SettingsRepository.js"

const HOPS_KEY = "trusted_proxy_hops"

/** The operator's hop setting, read at every request (spec Authentication 5). */
export class TrustedProxies extends Effect.Service<TrustedProxies>()("@tonearm/server/TrustedProxies", {
  effect: Effect.gen(function* () {
    const settings = yield* SettingsRepository
    const config = yield* TonearmConfig
    /** `TONEARM_TRUSTED_PROXIES` (validated at startup); undefined when the operator gave none. */
    const proxyList = (() => {
      if (config.trustedProxies === undefined || config.trustedProxies.length === 0) return undefined
      const parsed = parseProxyList(config.trustedProxies.join(","))
      return "ranges" in parsed ? parsed.ranges : undefined
    })()
    /** Whether this peer's X-Forwarded-For may be believed: always without a list, else only from a listed proxy. */
    const peerTrusted = (socketPeer: string) => proxyList === undefined || inProxyList(socketPeer, proxyList)

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
        resolved_address: resolveClientAddress({
          hops,
          forwardedChain,
          socketPeer,
          peerTrusted: peerTrusted(socketPeer),
        }),
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
      if (known !== undefined) return Effect.succeed(known)
      if (!peerTrusted(socketPeer)) return Effect.succeed(socketPeer)
      return Effect.map(currentHops, (hops) => resolveClientAddress({ hops, forwardedChain, socketPeer }))
    }

    /**
     * The addresses the login throttle counts for this connection: the resolved one, plus the socket peer when no
     * proxy list is configured and the chain named someone else (a forged header cannot dodge the limit).
     */
    const throttleAddresses = (connection: ConnectionFacts) =>
      Effect.map(clientAddress(connection), (resolvedAddress) =>
        loginThrottleAddresses({
          resolvedAddress,
          socketPeer: normalizeSocketPeer(connection.socketPeer),
          proxyListConfigured: proxyList !== undefined,
        }),
      )

    /** Whether the request came straight from a listed proxy (the proxy user header is honoured only then). */
    const fromListedProxy = (connection: ConnectionFacts) =>
      proxyList !== undefined && inProxyList(normalizeSocketPeer(connection.socketPeer), proxyList)

    const describe = (connection: ConnectionFacts) => Effect.map(currentHops, (hops) => describeWith(hops, connection))

    /** Stores the new setting and recomputes this request under it. */
    const setHops = (hops: number, connection: ConnectionFacts) =>
      Effect.gen(function* () {
        yield* settings.write(HOPS_KEY, hops, yield* currentDate)
        return describeWith(hops, connection)
      })

    return { currentHops, clientAddress, throttleAddresses, fromListedProxy, describe, setHops } as const
  }),
  dependencies: [SettingsRepository.Default],
}) {}
