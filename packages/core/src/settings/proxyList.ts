/**
 * The trusted proxy list (issue 29): the addresses or CIDR ranges of the reverse proxies in front of the server.
 * When the operator gives one, a forwarded chain is believed only from a socket peer inside it.
 */

/** One address or range: the address as bytes (4 for IPv4, 16 for IPv6) and how many leading bits must match. */
export interface ProxyRange {
  readonly bytes: ReadonlyArray<number>
  readonly prefix: number
  /** As the operator wrote it, for the trusted-proxies view and error messages. */
  readonly text: string
}

const parseIpv4 = (text: string): ReadonlyArray<number> | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const bytes = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : Number.NaN))
  return bytes.every((byte) => byte >= 0 && byte <= 255) ? bytes : undefined
}

const parseIpv6 = (text: string): ReadonlyArray<number> | undefined => {
  const withoutZone = text.split("%")[0]!
  const halves = withoutZone.split("::")
  if (halves.length > 2) return undefined
  const groupsOf = (part: string): Array<number> | undefined => {
    if (part === "") return []
    const groups: Array<number> = []
    const pieces = part.split(":")
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece)
        if (v4 === undefined) return undefined
        groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!)
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
        groups.push(Number.parseInt(piece, 16))
      } else {
        return undefined
      }
    }
    return groups
  }
  const head = groupsOf(halves[0]!)
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : []
  if (head === undefined || tail === undefined) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const groups = [...head, ...Array<number>(missing).fill(0), ...tail]
  return groups.flatMap((group) => [group >> 8, group & 255])
}

/** An IPv4 or IPv6 address as bytes; an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as its IPv4 bytes. */
export const addressBytes = (text: string): ReadonlyArray<number> | undefined => {
  const trimmed = text.trim().replace(/^\[(.*)\]$/, "$1")
  if (trimmed.includes(":")) {
    const bytes = parseIpv6(trimmed)
    if (bytes === undefined) return undefined
    const mapped = bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 255 && bytes[11] === 255
    return mapped ? bytes.slice(12) : bytes
  }
  return parseIpv4(trimmed)
}

/** `10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`; undefined when it is none of these. */
export const parseProxyRange = (text: string): ProxyRange | undefined => {
  const [address, prefixText, extra] = text.trim().split("/")
  if (address === undefined || extra !== undefined) return undefined
  const bytes = addressBytes(address)
  if (bytes === undefined) return undefined
  const bits = bytes.length * 8
  if (prefixText === undefined) return { bytes, prefix: bits, text: text.trim() }
  if (!/^\d{1,3}$/.test(prefixText)) return undefined
  const prefix = Number(prefixText)
  return prefix <= bits ? { bytes, prefix, text: text.trim() } : undefined
}

/**
 * `TONEARM_TRUSTED_PROXIES`: entries separated by commas or spaces. Either every range, or the first entry that is
 * not an address or a CIDR range.
 */
export const parseProxyList = (
  text: string,
): { readonly ranges: ReadonlyArray<ProxyRange> } | { readonly invalid: string } => {
  const ranges: Array<ProxyRange> = []
  for (const entry of text.split(/[\s,]+/).filter((part) => part !== "")) {
    const range = parseProxyRange(entry)
    if (range === undefined) return { invalid: entry }
    ranges.push(range)
  }
  return { ranges }
}

/** Whether an address lies in one of the ranges (an IPv4-mapped IPv6 peer matches IPv4 ranges). */
export const inProxyList = (address: string, ranges: ReadonlyArray<ProxyRange>): boolean => {
  const bytes = addressBytes(address)
  if (bytes === undefined) return false
  return ranges.some((range) => {
    if (range.bytes.length !== bytes.length) return false
    const whole = Math.floor(range.prefix / 8)
    for (let i = 0; i < whole; i++) if (range.bytes[i] !== bytes[i]) return false
    const rest = range.prefix % 8
    if (rest === 0) return true
    const mask = (0xff << (8 - rest)) & 0xff
    return (range.bytes[whole]! & mask) === (bytes[whole]! & mask)
  })
}
