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
}): string => {
  if (input.hops <= 0) return input.socketPeer
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
