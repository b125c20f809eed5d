import { createHash, timingSafeEqual } from "node:crypto"
import { Data } from "effect"
import type { DeviceClass } from "../listening/playRules.js"

/** The Subsonic REST API version Tonearm answers as (OpenSubsonic builds on 1.16.1). */
export const SUBSONIC_API_VERSION = "1.16.1"
/** OpenSubsonic `type`: the server's name. */
export const SUBSONIC_SERVER_TYPE = "tonearm"
/** The one music folder: the library. */
export const SUBSONIC_MUSIC_FOLDER_ID = 1

/** Subsonic error codes (subsonic.org API docs, OpenSubsonic 41-44). */
export const SubsonicErrorCode = {
  generic: 0,
  missingParameter: 10,
  clientTooOld: 20,
  serverTooOld: 30,
  wrongCredentials: 40,
  tokenAuthNotSupported: 41,
  authMechanismNotSupported: 42,
  conflictingAuth: 43,
  invalidApiKey: 44,
  notAuthorized: 50,
  notFound: 70,
} as const
export type SubsonicErrorCode = (typeof SubsonicErrorCode)[keyof typeof SubsonicErrorCode]

/** A Subsonic failure: answered inside a `status="failed"` envelope. */
export class SubsonicFailure extends Data.TaggedError("SubsonicFailure")<{
  readonly code: SubsonicErrorCode
  readonly message: string
}> {}

export const missingParameter = (name: string) =>
  new SubsonicFailure({ code: SubsonicErrorCode.missingParameter, message: `Required parameter is missing: ${name}` })

/**
 * The client's protocol version `v` against ours: a different major version can't talk (Subsonic: 20 when the
 * client is older, 30 when the server is). Absent or unparsable: accepted, as most servers do.
 */
export const protocolVersionFailure = (v: string | undefined): SubsonicFailure | undefined => {
  const major = v === undefined ? Number.NaN : Number(/^(\d+)\./.exec(v.trim())?.[1] ?? Number.NaN)
  const ours = Number(SUBSONIC_API_VERSION.split(".")[0])
  if (Number.isNaN(major) || major === ours) return undefined
  return major < ours
    ? new SubsonicFailure({
        code: SubsonicErrorCode.clientTooOld,
        message: `Client must upgrade: v${v} < ${SUBSONIC_API_VERSION}`,
      })
    : new SubsonicFailure({
        code: SubsonicErrorCode.serverTooOld,
        message: `Server must upgrade: v${v} > ${SUBSONIC_API_VERSION}`,
      })
}

/** `p=enc:<hex>` is the password hex-encoded; anything else is the password itself. */
export const decodeSubsonicPassword = (p: string): string | undefined => {
  if (!p.startsWith("enc:")) return p
  const hex = p.slice(4)
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined
  return Buffer.from(hex, "hex").toString("utf8")
}

/** Token auth: `t` is md5(password + salt) in lower-case hex; compared in constant time. */
export const subsonicTokenMatches = (password: string, salt: string, token: string): boolean => {
  const expected = Buffer.from(
    createHash("md5")
      .update(password + salt, "utf8")
      .digest("hex"),
    "utf8",
  )
  const given = Buffer.from(token.toLowerCase(), "utf8")
  return expected.length === given.length && timingSafeEqual(expected, given)
}

/**
 * The device class of a scrobble, from the Subsonic client name `c` (case-insensitive substring match):
 * known phone apps are mobile, desktop apps desktop, browser players web, car/TV/watch/speaker names as
 * such; any other name is `other`; no name is null. Whole words, checked in order, so "Symfonium (Android
 * Auto)" is car.
 */
const CLIENT_CLASSES: ReadonlyArray<readonly [DeviceClass, ReadonlyArray<string>]> = [
  ["car", ["android auto", "carplay", "automotive"]],
  ["watch", ["watch", "wear os", "wearos"]],
  ["tv", ["android tv", "androidtv", "tvos", "apple tv", "fire tv", "kodi", "tv"]],
  ["speaker", ["sonos", "upnp", "dlna", "chromecast", "alexa", "speaker"]],
  ["tablet", ["ipad", "tablet"]],
  [
    "web",
    [
      "web",
      "navidromeui",
      "navidrome ui",
      "jamstash",
      "airsonic refix",
      "aonsoku",
      "subplayer",
      "musicstash",
      "browser",
    ],
  ],
  [
    "desktop",
    [
      "feishin",
      "sonixd",
      "sublime",
      "supersonic",
      "strawberry",
      "clementine",
      "quodlibet",
      "submariner",
      "stmp",
      "jellyamp",
      "sonicd",
      "desktop",
      "windows",
      "macos",
      "linux",
    ],
  ],
  [
    "mobile",
    [
      "dsub",
      "symfonium",
      "substreamer",
      "tempo",
      "play:sub",
      "playsub",
      "amperfy",
      "ultrasonic",
      "subtracks",
      "audinaut",
      "iSub",
      "castafiore",
      "narjo",
      "arpeggi",
      "android",
      "ios",
      "iphone",
      "mobile",
    ],
  ],
]

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
/** Whole words only: "tv" is not found in "substv2" but is in "Kodi TV". */
const wordIn = (name: string, needle: string) =>
  new RegExp(`(^|[^a-z0-9])${escapeRegExp(needle)}($|[^a-z0-9])`).test(name)

export const deviceClassOfClient = (client: string | undefined): DeviceClass | null => {
  const name = client?.trim().toLowerCase() ?? ""
  if (name === "") return null
  for (const [deviceClass, needles] of CLIENT_CLASSES) {
    if (needles.some((needle) => wordIn(name, needle.toLowerCase()))) return deviceClass
  }
  return "other"
}

/** Cover-art ids: an album, an artist or a playlist, prefixed the way Navidrome does. */
export type CoverArtRef =
  | { readonly kind: "album"; readonly id: string }
  | { readonly kind: "artist"; readonly id: string }
  | { readonly kind: "playlist"; readonly id: string }
  | { readonly kind: "any"; readonly id: string }

export const coverArtId = (kind: "album" | "artist" | "playlist", id: string) =>
  `${kind === "album" ? "al" : kind === "artist" ? "ar" : "pl"}-${id}`

/** `al-<id>`, `ar-<id>`, `pl-<id>`; a bare id (a song's or an album's) is looked up as either. */
export const parseCoverArtId = (raw: string): CoverArtRef => {
  const match = /^(al|ar|pl)-(.+)$/.exec(raw)
  if (match === null) return { kind: "any", id: raw }
  const kind = match[1] === "al" ? "album" : match[1] === "ar" ? "artist" : "playlist"
  return { kind, id: match[2]! }
}

/** Subsonic's `enc:`-free JSONP callback names: a JavaScript identifier path, nothing that could run code. */
export const isSafeJsonpCallback = (name: string): boolean =>
  /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(name) && name.length <= 100
