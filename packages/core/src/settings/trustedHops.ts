/**
 * The trusted-hop model (spec Authentication 5): which address a request comes from, given how many
 * proxies in front of the server append to X-Forwarded-For.
 */
export const DEFAULT_TRUSTED_HOPS = 1
export const MAX_TRUSTED_HOPS = 10

/** The forwarded chain as appended left to right by each proxy: trimmed entries, empty ones dropped. */
export const parseForwardedChain = (header: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> => {
  if (header === undefined) return []
  const joined = typeof header === "string" ? header : header.join(",")
  return joined
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
}

/** Socket peers arrive as IPv4-mapped IPv6 on a dual-stack listener; show the IPv4 form. */
export const normalizeSocketPeer = (address: string | undefined): string => {
  if (address === undefined || address === "") return "unknown"
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice("::ffff:".length) : address
}

/**
 * hops 0: the socket peer, the header ignored. hops n ≥ 1: the entry at index (length − n) of the chain;
 * a chain shorter than n falls back to the socket peer.
 */
export const resolveClientAddress = (input: {
  readonly hops: number
  readonly forwardedChain: ReadonlyArray<string>
  readonly socketPeer: string
  /** False when the operator lists the trusted proxies and the socket peer is not one: the chain is not believed. */
  readonly peerTrusted?: boolean | undefined
}): string => {
  if (input.hops <= 0 || input.peerTrusted === false) return input.socketPeer
  const index = input.forwardedChain.length - input.hops
  return index >= 0 ? input.forwardedChain[index]! : input.socketPeer
}

/**
 * The address when no setting can change it: with an empty forwarded chain every hop count resolves to the
 * socket peer (hops 0 by rule, hops ≥ 1 because the header is too short), so the setting need not be read.
 * `undefined` when the chain has entries and the setting decides.
 */
export const addressWithoutHops = (input: {
  readonly forwardedChain: ReadonlyArray<string>
  readonly socketPeer: string
}): string | undefined => (input.forwardedChain.length === 0 ? input.socketPeer : undefined)

/** A stored hop setting is used only when it is an integer in range; anything else is the default. */
export const hopsFromSetting = (value: unknown): number =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_TRUSTED_HOPS
    ? value
    : DEFAULT_TRUSTED_HOPS

/**
 * The addresses the login throttle counts a sign-in against (issue 29). The resolved address always; without a
 * trusted proxy list, also the socket peer when the chain named someone else, so a forged X-Forwarded-For sent
 * straight to the server cannot dodge the limit by naming a new address each time. With a list, the resolved
 * address alone: a listed proxy's forwarded address is believed, and any other peer resolves to itself.
 */
export const loginThrottleAddresses = (input: {
  readonly resolvedAddress: string
  readonly socketPeer: string
  readonly proxyListConfigured: boolean
}): ReadonlyArray<string> =>
  input.proxyListConfigured || input.resolvedAddress === input.socketPeer
    ? [input.resolvedAddress]
    : [input.resolvedAddress, input.socketPeer]
