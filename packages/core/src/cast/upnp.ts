/**
 * The UPnP/DLNA words Tonearm speaks to network speakers (MediaRenderer:1): SSDP messages, device descriptions,
 * SOAP actions and DIDL-Lite metadata. Pure text in, text out: the server does the sockets and HTTP.
 */

export const MEDIA_RENDERER = "urn:schemas-upnp-org:device:MediaRenderer:1"
export const AV_TRANSPORT = "urn:schemas-upnp-org:service:AVTransport:1"
export const RENDERING_CONTROL = "urn:schemas-upnp-org:service:RenderingControl:1"
export const SSDP_ADDRESS = "239.255.255.250"
export const SSDP_PORT = 1900

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" }

/** Escapes text for an XML element or attribute value. */
export const xmlEscape = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char]!)

/** The reverse, for values read from a renderer (the five entities and numeric references). */
export const xmlUnescape = (text: string): string =>
  text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    if (entity.startsWith("#x")) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16))
    if (entity.startsWith("#")) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10))
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[entity]!
  })

/** The text of every `<name>` element (any namespace prefix), unescaped; CDATA kept as is. */
export const xmlElements = (xml: string, name: string): Array<string> => {
  const pattern = new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:[\\w.-]+:)?${name}\\s*>`, "g")
  return [...xml.matchAll(pattern)].map((match) => {
    const body = match[1]!.trim()
    const cdata = /^<!\[CDATA\[([\s\S]*)\]\]>$/.exec(body)
    return cdata ? cdata[1]! : xmlUnescape(body)
  })
}

export const xmlElement = (xml: string, name: string): string | undefined => xmlElements(xml, name)[0]

// ---- SSDP ------------------------------------------------------------------------------------------------------

/** The M-SEARCH a control point multicasts to find renderers (UPnP Device Architecture 1.0, 1.3.2). */
export const mSearch = (searchTarget = MEDIA_RENDERER, waitSeconds = 2): string =>
  [
    "M-SEARCH * HTTP/1.1",
    `HOST: ${SSDP_ADDRESS}:${SSDP_PORT}`,
    'MAN: "ssdp:discover"',
    `MX: ${waitSeconds}`,
    `ST: ${searchTarget}`,
    "",
    "",
  ].join("\r\n")

export interface SsdpMessage {
  /** `response` for an M-SEARCH answer, `alive`/`byebye` for a NOTIFY, `search` for someone else's M-SEARCH. */
  readonly type: "response" | "alive" | "byebye" | "search" | "other"
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>
}

export const parseSsdp = (text: string): SsdpMessage => {
  const [startLine = "", ...lines] = text.split(/\r?\n/)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const start = startLine.trim().toUpperCase()
  const type = start.startsWith("HTTP/")
    ? "response"
    : start.startsWith("NOTIFY")
      ? headers.nts === "ssdp:byebye"
        ? "byebye"
        : headers.nts === "ssdp:alive"
          ? "alive"
          : "other"
      : start.startsWith("M-SEARCH")
        ? "search"
        : "other"
  return { type, headers }
}

/** Whether an SSDP message speaks of a MediaRenderer (its ST for a response, NT for a NOTIFY). */
export const isRendererMessage = (message: SsdpMessage): boolean =>
  (message.headers.st ?? message.headers.nt ?? "").startsWith("urn:schemas-upnp-org:device:MediaRenderer:")

/** `uuid:abc::urn:…` → `abc`: the device part of a USN or UDN, lower-cased. */
export const deviceUuid = (usnOrUdn: string): string =>
  usnOrUdn
    .split("::")[0]!
    .replace(/^uuid:/i, "")
    .trim()
    .toLowerCase()

// ---- device description -------------------------------------------------------------------------------------

export interface RendererDescription {
  /** The device uuid (from the UDN), lower-case: the renderer's id. */
  readonly id: string
  readonly name: string
  /** Absolute control URLs, resolved against URLBase or the description's own URL. */
  readonly avTransportUrl: string
  readonly renderingControlUrl: string | undefined
}

/**
 * Reads a MediaRenderer's description: its UDN, friendly name and the AVTransport and RenderingControl control
 * URLs. Undefined when it is not a renderer Tonearm can drive (no AVTransport, no UDN, a control URL on another
 * host: a renderer is only ever controlled at the host it was found at).
 */
export const parseRendererDescription = (xml: string, descriptionUrl: string): RendererDescription | undefined => {
  const udn = xmlElement(xml, "UDN")
  if (udn === undefined) return undefined
  const base = xmlElement(xml, "URLBase") || descriptionUrl
  const services = xmlElements(xml.replace(/<(\/?)(?:[\w.-]+:)?service\b/g, "<$1svc"), "svc")
  // xmlElements unescapes: the blocks are read again as XML, which is safe for these plain URLs and names.
  const controlUrl = (type: string) => {
    const block = services.find((service) => (xmlElement(service, "serviceType") ?? "").startsWith(type))
    const relative = block === undefined ? undefined : xmlElement(block, "controlURL")
    if (relative === undefined) return undefined
    try {
      const url = new URL(relative, base)
      if (url.host !== new URL(descriptionUrl).host || !/^https?:$/.test(url.protocol)) return undefined
      return url.toString()
    } catch {
      return undefined
    }
  }
  const avTransportUrl = controlUrl(AV_TRANSPORT.replace(/1$/, ""))
  if (avTransportUrl === undefined) return undefined
  const id = deviceUuid(udn)
  if (id === "") return undefined
  return {
    id,
    name: xmlElement(xml, "friendlyName")?.trim() || id,
    avTransportUrl,
    renderingControlUrl: controlUrl(RENDERING_CONTROL.replace(/1$/, "")),
  }
}

// ---- SOAP ---------------------------------------------------------------------------------------------------

/** A SOAP action's body; every argument value is escaped (so DIDL-Lite travels escaped once more). */
export const soapEnvelope = (
  serviceType: string,
  action: string,
  args: ReadonlyArray<readonly [string, string | number]>,
): string =>
  '<?xml version="1.0" encoding="utf-8"?>' +
  '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">' +
  `<s:Body><u:${action} xmlns:u="${serviceType}">` +
  args.map(([name, value]) => `<${name}>${xmlEscape(String(value))}</${name}>`).join("") +
  `</u:${action}></s:Body></s:Envelope>`

/** The SOAPACTION header value. */
export const soapAction = (serviceType: string, action: string) => `"${serviceType}#${action}"`

export interface SoapFault {
  readonly code: string
  readonly description: string
}

/** The UPnP error of a SOAP fault answer (errorCode, errorDescription), when the body is one. */
export const parseSoapFault = (xml: string): SoapFault | undefined => {
  if (!/<(?:[\w.-]+:)?Fault\b/.test(xml)) return undefined
  return {
    code: xmlElement(xml, "errorCode") ?? xmlElement(xml, "faultcode") ?? "unknown",
    description: xmlElement(xml, "errorDescription") ?? xmlElement(xml, "faultstring") ?? "SOAP fault",
  }
}

// ---- time ---------------------------------------------------------------------------------------------------

/** Milliseconds as UPnP's `H+:MM:SS` (REL_TIME seek targets, DIDL durations carry `.mmm`). */
export const formatUpnpTime = (ms: number, withMillis = false): string => {
  const total = Math.max(0, Math.floor(ms))
  const seconds = Math.floor(total / 1000)
  const text = `${Math.floor(seconds / 3600)}:${String(Math.floor(seconds / 60) % 60).padStart(2, "0")}:${String(
    seconds % 60,
  ).padStart(2, "0")}`
  return withMillis ? `${text}.${String(total % 1000).padStart(3, "0")}` : text
}

/** `H+:MM:SS[.F+]` (or `.F0/F1`) as milliseconds; undefined for `NOT_IMPLEMENTED` or anything unreadable. */
export const parseUpnpTime = (text: string | undefined): number | undefined => {
  const match = /^\s*(\d+):(\d{1,2}):(\d{1,2})(?:\.(\d+)(?:\/(\d+))?)?\s*$/.exec(text ?? "")
  if (match === null) return undefined
  const [, h, m, s, fraction, divisor] = match
  const whole = (Number(h) * 3600 + Number(m) * 60 + Number(s)) * 1000
  if (fraction === undefined) return whole
  const part = divisor !== undefined ? Number(fraction) / Number(divisor) : Number(`0.${fraction}`)
  return whole + Math.round((Number.isFinite(part) ? part : 0) * 1000)
}

// ---- DIDL-Lite ----------------------------------------------------------------------------------------------

export interface DidlItem {
  readonly id: string
  readonly title: string
  readonly artist?: string | undefined
  readonly album?: string | undefined
  readonly albumArtUrl?: string | undefined
  readonly durationMs?: number | undefined
  readonly url: string
  readonly mime: string
}

/** The metadata sent with SetAVTransportURI: one music track, its resource with `http-get:*:<mime>:*`. */
export const didlLite = (item: DidlItem): string => {
  const optional = (tag: string, value: string | undefined) =>
    value === undefined || value === "" ? "" : `<${tag}>${xmlEscape(value)}</${tag}>`
  const duration = item.durationMs === undefined ? "" : ` duration="${formatUpnpTime(item.durationMs, true)}"`
  return (
    '<DIDL-Lite xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/">' +
    `<item id="${xmlEscape(item.id)}" parentID="0" restricted="1">` +
    `<dc:title>${xmlEscape(item.title)}</dc:title>` +
    optional("upnp:artist", item.artist) +
    optional("dc:creator", item.artist) +
    optional("upnp:album", item.album) +
    optional("upnp:albumArtURI", item.albumArtUrl) +
    "<upnp:class>object.item.audioItem.musicTrack</upnp:class>" +
    `<res protocolInfo="http-get:*:${xmlEscape(item.mime)}:*"${duration}>${xmlEscape(item.url)}</res>` +
    "</item></DIDL-Lite>"
  )
}

/** The track a stream URL plays (`/api/tracks/<uuid>/stream…`), when it is one of ours. */
export const trackIdOfStreamUrl = (url: string | undefined): string | undefined =>
  /\/api\/tracks\/([0-9a-fA-F-]{36})\/stream/.exec(url ?? "")?.[1]?.toLowerCase()
