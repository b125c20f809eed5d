import { DOMParser, type Element } from "@xmldom/xmldom"

/**
 * A shape check of Subsonic XML answers, written from subsonic-rest-api.xsd (1.16.1) plus the OpenSubsonic
 * additions, for the elements Tonearm emits: every attribute must be one the type declares, with a value of
 * its XSD type; required attributes must be there; child elements must be ones the type allows. Not the XSD
 * itself (no ordering or cardinality beyond that), but it catches a misspelt, mistyped or misplaced field.
 */
type XsdType = "string" | "int" | "long" | "boolean" | "dateTime" | "double" | `enum:${string}`
interface ElementShape {
  readonly attributes: Readonly<Record<string, XsdType>>
  readonly required?: ReadonlyArray<string>
  /** Child element name → the shape it has. */
  readonly children?: Readonly<Record<string, string>>
  /** Text content allowed (and its type). */
  readonly text?: XsdType
}

const child: ElementShape = {
  attributes: {
    id: "string",
    parent: "string",
    isDir: "boolean",
    title: "string",
    album: "string",
    artist: "string",
    track: "int",
    year: "int",
    genre: "string",
    coverArt: "string",
    size: "long",
    contentType: "string",
    suffix: "string",
    transcodedContentType: "string",
    transcodedSuffix: "string",
    duration: "int",
    bitRate: "int",
    path: "string",
    isVideo: "boolean",
    userRating: "int",
    averageRating: "double",
    playCount: "long",
    discNumber: "int",
    created: "dateTime",
    starred: "dateTime",
    albumId: "string",
    artistId: "string",
    type: "enum:music|podcast|audiobook|video",
    // OpenSubsonic
    mediaType: "enum:song|album|artist",
    musicBrainzId: "string",
    played: "dateTime",
    bpm: "int",
    comment: "string",
    sortName: "string",
    displayArtist: "string",
    displayAlbumArtist: "string",
  },
  required: ["id", "isDir", "title"],
  children: { genres: "itemGenre", artists: "artistID3Ref", albumArtists: "artistID3Ref", replayGain: "replayGain" },
}

const artist: ElementShape = {
  attributes: { id: "string", name: "string", artistImageUrl: "string", starred: "dateTime", userRating: "int" },
  required: ["id", "name"],
}

const artistID3: ElementShape = {
  attributes: {
    id: "string",
    name: "string",
    coverArt: "string",
    artistImageUrl: "string",
    albumCount: "int",
    starred: "dateTime",
    musicBrainzId: "string",
    sortName: "string",
    // OpenSubsonic (and Navidrome)
    userRating: "int",
  },
  required: ["id", "name", "albumCount"],
}

const albumID3: ElementShape = {
  attributes: {
    id: "string",
    name: "string",
    artist: "string",
    artistId: "string",
    coverArt: "string",
    songCount: "int",
    duration: "int",
    playCount: "long",
    created: "dateTime",
    starred: "dateTime",
    year: "int",
    genre: "string",
    musicBrainzId: "string",
    sortName: "string",
    // OpenSubsonic
    userRating: "int",
    displayArtist: "string",
    isCompilation: "boolean",
    version: "string",
  },
  required: ["id", "name", "songCount", "duration", "created"],
  children: { genres: "itemGenre", artists: "artistID3Ref", discTitles: "discTitle" },
}

const playlist: ElementShape = {
  attributes: {
    id: "string",
    name: "string",
    comment: "string",
    owner: "string",
    public: "boolean",
    songCount: "int",
    duration: "int",
    created: "dateTime",
    changed: "dateTime",
    coverArt: "string",
    readonly: "boolean",
  },
  required: ["id", "name", "songCount", "duration", "created", "changed"],
}

const info = (similar: string): ElementShape => ({
  attributes: {},
  children: {
    biography: "text",
    musicBrainzId: "text",
    lastFmUrl: "text",
    smallImageUrl: "text",
    mediumImageUrl: "text",
    largeImageUrl: "text",
    similarArtist: similar,
  },
})

const songs: ElementShape = { attributes: {}, children: { song: "child" } }

export const SHAPES: Readonly<Record<string, ElementShape>> = {
  "subsonic-response": {
    attributes: {
      xmlns: "string",
      status: "enum:ok|failed",
      version: "string",
      type: "string",
      serverVersion: "string",
      openSubsonic: "boolean",
    },
    required: ["status", "version", "type", "serverVersion", "openSubsonic"],
    children: {
      error: "error",
      musicFolders: "musicFolders",
      indexes: "indexes",
      artists: "artists",
      artist: "artistWithAlbumsID3",
      artistInfo: "artistInfo",
      artistInfo2: "artistInfo2",
      album: "albumWithSongsID3",
      albumInfo: "albumInfo",
      song: "child",
      directory: "directory",
      albumList: "albumList",
      albumList2: "albumList2",
      randomSongs: "songs",
      songsByGenre: "songs",
      genres: "genres",
      searchResult2: "searchResult2",
      searchResult3: "searchResult3",
      playlists: "playlists",
      playlist: "playlistWithSongs",
      starred: "searchResult2",
      starred2: "searchResult3",
      nowPlaying: "nowPlaying",
      similarSongs: "songs",
      similarSongs2: "songs",
      topSongs: "songs",
      playQueue: "playQueue",
      user: "user",
      scanStatus: "scanStatus",
      license: "license",
      openSubsonicExtensions: "openSubsonicExtension",
      lyrics: "lyrics",
      lyricsList: "lyricsList",
      tokenInfo: "tokenInfo",
    },
  },
  error: { attributes: { code: "int", message: "string" }, required: ["code"] },
  lyrics: { attributes: { artist: "string", title: "string" }, text: "string" },
  // OpenSubsonic songLyrics
  lyricsList: { attributes: {}, children: { structuredLyrics: "structuredLyrics" } },
  structuredLyrics: {
    attributes: { displayArtist: "string", displayTitle: "string", lang: "string", offset: "long", synced: "boolean" },
    required: ["lang", "synced"],
    children: { line: "lyricsLine" },
  },
  lyricsLine: { attributes: { start: "long" }, text: "string" },
  tokenInfo: { attributes: { username: "string" }, required: ["username"] },
  text: { attributes: {}, text: "string" },
  intText: { attributes: {}, text: "int" },
  itemGenre: { attributes: { name: "string" }, required: ["name"] },
  // OpenSubsonic: a song's or album's artists are ArtistID3 with its required fields only (no albumCount).
  artistID3Ref: { attributes: { id: "string", name: "string" }, required: ["id", "name"] },
  replayGain: {
    attributes: {
      trackGain: "double",
      albumGain: "double",
      trackPeak: "double",
      albumPeak: "double",
      baseGain: "double",
      fallbackGain: "double",
    },
  },
  discTitle: { attributes: { disc: "int", title: "string", coverArt: "string" }, required: ["disc", "title"] },
  musicFolders: { attributes: {}, children: { musicFolder: "musicFolder" } },
  musicFolder: { attributes: { id: "int", name: "string" }, required: ["id"] },
  indexes: {
    attributes: { lastModified: "long", ignoredArticles: "string" },
    required: ["lastModified", "ignoredArticles"],
    children: { index: "index", shortcut: "artist", child: "child" },
  },
  index: { attributes: { name: "string" }, required: ["name"], children: { artist: "artist" } },
  artists: {
    // lastModified: not in the XSD; Navidrome's, for ifModifiedSince.
    attributes: { lastModified: "long", ignoredArticles: "string" },
    required: ["ignoredArticles"],
    children: { index: "indexID3" },
  },
  indexID3: { attributes: { name: "string" }, required: ["name"], children: { artist: "artistID3" } },
  artist,
  artistID3,
  artistWithAlbumsID3: { ...artistID3, children: { album: "albumID3" } },
  albumID3,
  albumWithSongsID3: { ...albumID3, children: { ...albumID3.children, song: "child" } },
  child,
  nowPlayingEntry: {
    ...child,
    attributes: { ...child.attributes, username: "string", minutesAgo: "int", playerId: "int", playerName: "string" },
    required: [...(child.required ?? []), "username", "minutesAgo", "playerId"],
  },
  directory: {
    attributes: { id: "string", parent: "string", name: "string", starred: "dateTime", playCount: "long" },
    required: ["id", "name"],
    children: { child: "child" },
  },
  artistInfo: info("artist"),
  artistInfo2: info("artistID3"),
  albumInfo: info("artist"),
  albumList: { attributes: {}, children: { album: "child" } },
  albumList2: { attributes: {}, children: { album: "albumID3" } },
  songs,
  genres: { attributes: {}, children: { genre: "genre" } },
  genre: { attributes: { songCount: "int", albumCount: "int" }, required: ["songCount", "albumCount"], text: "string" },
  searchResult2: { attributes: {}, children: { artist: "artist", album: "child", song: "child" } },
  searchResult3: { attributes: {}, children: { artist: "artistID3", album: "albumID3", song: "child" } },
  playlists: { attributes: {}, children: { playlist: "playlist" } },
  playlist: { ...playlist, children: { allowedUser: "text" } },
  playlistWithSongs: { ...playlist, children: { allowedUser: "text", entry: "child" } },
  nowPlaying: { attributes: {}, children: { entry: "nowPlayingEntry" } },
  playQueue: {
    attributes: { current: "string", position: "long", username: "string", changed: "dateTime", changedBy: "string" },
    required: ["username", "changed", "changedBy"],
    children: { entry: "child" },
  },
  user: {
    attributes: Object.fromEntries([
      ["username", "string"],
      ["email", "string"],
      ["maxBitRate", "int"],
      ["avatarLastChanged", "dateTime"],
      ...[
        "scrobblingEnabled",
        "adminRole",
        "settingsRole",
        "downloadRole",
        "uploadRole",
        "playlistRole",
        "coverArtRole",
        "commentRole",
        "podcastRole",
        "streamRole",
        "jukeboxRole",
        "shareRole",
        "videoConversionRole",
      ].map((role) => [role, "boolean"]),
    ]) as Record<string, XsdType>,
    required: [
      "username",
      "scrobblingEnabled",
      "adminRole",
      "settingsRole",
      "downloadRole",
      "uploadRole",
      "playlistRole",
      "coverArtRole",
      "commentRole",
      "podcastRole",
      "streamRole",
      "jukeboxRole",
      "shareRole",
      "videoConversionRole",
    ],
    children: { folder: "intText" },
  },
  scanStatus: { attributes: { scanning: "boolean", count: "long" }, required: ["scanning"] },
  license: {
    attributes: { valid: "boolean", email: "string", licenseExpires: "dateTime", trialExpires: "dateTime" },
    required: ["valid"],
  },
  openSubsonicExtension: { attributes: { name: "string" }, required: ["name"], children: { versions: "intText" } },
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/

const typeProblem = (type: XsdType, value: string): string | undefined => {
  switch (type) {
    case "string":
      return undefined
    case "int":
    case "long":
      return /^-?\d+$/.test(value) ? undefined : `not an integer: ${value}`
    case "double":
      return Number.isFinite(Number(value)) ? undefined : `not a number: ${value}`
    case "boolean":
      return value === "true" || value === "false" ? undefined : `not a boolean: ${value}`
    case "dateTime":
      return DATE_TIME.test(value) ? undefined : `not an xs:dateTime: ${value}`
    default: {
      const allowed = type.slice("enum:".length).split("|")
      return allowed.includes(value) ? undefined : `${value} is not one of ${allowed.join(", ")}`
    }
  }
}

const check = (element: Element, shapeName: string, path: string, problems: Array<string>) => {
  const shape = SHAPES[shapeName]
  if (shape === undefined) {
    problems.push(`${path}: no shape ${shapeName}`)
    return
  }
  for (let i = 0; i < element.attributes.length; i++) {
    const attribute = element.attributes.item(i)!
    const type = shape.attributes[attribute.name]
    if (type === undefined) problems.push(`${path}/@${attribute.name}: not declared by ${shapeName}`)
    else {
      const problem = typeProblem(type, attribute.value)
      if (problem !== undefined) problems.push(`${path}/@${attribute.name}: ${problem}`)
    }
  }
  for (const name of shape.required ?? []) {
    if (!element.hasAttribute(name)) problems.push(`${path}: required attribute ${name} is missing`)
  }
  let text = ""
  for (let node = element.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === 3) text += node.nodeValue ?? ""
    if (node.nodeType !== 1) continue
    const childElement = node as Element
    const childShape = shape.children?.[childElement.tagName]
    if (childShape === undefined) problems.push(`${path}/${childElement.tagName}: not allowed in ${shapeName}`)
    else check(childElement, childShape, `${path}/${childElement.tagName}`, problems)
  }
  if (text.trim() !== "") {
    if (shape.text === undefined) problems.push(`${path}: text content not allowed in ${shapeName}`)
    else {
      const problem = typeProblem(shape.text, text)
      if (problem !== undefined) problems.push(`${path}: ${problem}`)
    }
  }
}

/** Parses a Subsonic XML answer and lists every way it departs from the XSD shape (empty: it conforms). */
export const xsdProblems = (xml: string): Array<string> => {
  const problems: Array<string> = []
  const document = new DOMParser({
    onError: (level, message) => {
      if (level !== "warning") problems.push(`parse ${level}: ${message}`)
    },
  }).parseFromString(xml, "application/xml")
  const root = document.documentElement
  if (root === null) return [...problems, "no root element"]
  if (root.tagName !== "subsonic-response") problems.push(`root is ${root.tagName}`)
  if (root.namespaceURI !== "http://subsonic.org/restapi") problems.push(`namespace is ${root.namespaceURI}`)
  check(root, "subsonic-response", "/subsonic-response", problems)
  return problems
}

export const parseXml = (xml: string) => new DOMParser().parseFromString(xml, "application/xml")
