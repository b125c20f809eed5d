import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import {
  Conflict,
  ConflictReason,
  Forbidden,
  Internal,
  InvalidRequest,
  NotFound,
  NotFoundResource,
  SubsonicErrorCode,
  SubsonicFailure,
} from "@tonearm/core"
import { Effect, Either } from "effect"
import { NOT_FOUND_WORDS, subsonicAnswerOf } from "../../src/subsonic/failures.js"
import { decodeParams, param } from "../../src/subsonic/method.js"
import { methodTable, SUBSONIC_METHODS } from "../../src/subsonic/methods/index.js"
import { SubsonicParams } from "../../src/subsonic/params.js"
import { SubsonicThrottled } from "../../src/subsonic/SubsonicCredentialsService.js"

/** Every method Tonearm answers on /rest (the protocol's and OpenSubsonic's), no more, no fewer. */
const ANSWERED = [
  "ping",
  "getLicense",
  "getOpenSubsonicExtensions",
  "getScanStatus",
  "startScan",
  "getMusicFolders",
  "getIndexes",
  "getArtists",
  "getArtist",
  "getAlbum",
  "getSong",
  "getMusicDirectory",
  "getGenres",
  "getArtistInfo",
  "getArtistInfo2",
  "getAlbumInfo",
  "getAlbumInfo2",
  "getSimilarSongs",
  "getSimilarSongs2",
  "getTopSongs",
  "getAlbumList",
  "getAlbumList2",
  "getRandomSongs",
  "getSongsByGenre",
  "getNowPlaying",
  "getStarred",
  "getStarred2",
  "search2",
  "search3",
  "getPlaylists",
  "getPlaylist",
  "createPlaylist",
  "updatePlaylist",
  "deletePlaylist",
  "star",
  "unstar",
  "setRating",
  "scrobble",
  "getPlayQueue",
  "savePlayQueue",
  "stream",
  "download",
  "getCoverArt",
  "getLyrics",
  "getLyricsBySongId",
  "tokenInfo",
  "getUser",
]

const failureOf = <A>(effect: Effect.Effect<A, SubsonicFailure>) =>
  Either.match(Effect.runSync(Effect.either(effect)), {
    onLeft: (failure) => ({ code: failure.code, message: failure.message }),
    onRight: (value) => ({ value }),
  })

describe("the Subsonic method table", () => {
  it("registers every answered method exactly once, and nothing else", () => {
    const names = SUBSONIC_METHODS.map((method) => method.name)
    expect(new Set(names).size).toBe(names.length)
    expect([...names].sort()).toEqual([...ANSWERED].sort())
    expect([...methodTable(SUBSONIC_METHODS).keys()].sort()).toEqual([...ANSWERED].sort())
  })

  it("refuses a name registered twice", () => {
    const ping = SUBSONIC_METHODS.find((method) => method.name === "ping")!
    expect(() => methodTable([...SUBSONIC_METHODS, ping])).toThrow("Subsonic method ping is registered twice")
  })

  it("only the extension list answers without credentials", () => {
    expect(SUBSONIC_METHODS.filter((method) => method.anonymous).map((method) => method.name)).toEqual([
      "getOpenSubsonicExtensions",
    ])
  })
})

describe("Subsonic parameters", () => {
  const spec = { id: param.id("track"), size: param.int(10), name: param.required }
  const read = (entries: Array<[string, string]>) => failureOf(decodeParams(spec, new SubsonicParams(entries)))

  it("are read in their declared order, the first bad one answering", () => {
    expect(read([["id", "nope"]])).toEqual({ code: SubsonicErrorCode.notFound, message: "Song not found" })
    expect(read([["size", "x"]])).toEqual({
      code: SubsonicErrorCode.missingParameter,
      message: "Required parameter is missing: id",
    })
    const id = "00000000-0000-4000-8000-000000000000"
    expect(
      read([
        ["id", id],
        ["size", "1.5"],
      ]),
    ).toEqual({ code: SubsonicErrorCode.generic, message: "Parameter size must be an integer" })
    expect(
      read([
        ["id", id],
        ["name", ""],
      ]),
    ).toEqual({ code: SubsonicErrorCode.missingParameter, message: "Required parameter is missing: name" })
    expect(
      read([
        ["id", id],
        ["name", "x"],
      ]),
    ).toEqual({ value: { id, size: 10, name: "x" } })
  })

  it("a later parameter fails only when it is read", () => {
    const later = { year: param.later(param.requiredInt) }
    const decoded = failureOf(decodeParams(later, new SubsonicParams([["year", "soon"]])))
    expect(decoded).toHaveProperty("value")
    const year = (decoded as { value: { year: Effect.Effect<number, SubsonicFailure> } }).value.year
    expect(failureOf(year)).toEqual({ code: SubsonicErrorCode.generic, message: "Parameter year must be an integer" })
  })

  it("givenRequired keeps an empty value; required does not", () => {
    const query = { query: param.givenRequired }
    expect(failureOf(decodeParams(query, new SubsonicParams([["query", ""]])))).toEqual({ value: { query: "" } })
    expect(failureOf(decodeParams(query, new SubsonicParams([])))).toEqual({
      code: SubsonicErrorCode.missingParameter,
      message: "Required parameter is missing: query",
    })
  })
})

describe("Subsonic failures map by type, never by message text", () => {
  it("a NotFound answers 70 with its resource's word, whatever its message says", () => {
    for (const resource of NotFoundResource.literals) {
      const answer = subsonicAnswerOf(new NotFound({ message: "no such track", resource }))
      expect(answer).toMatchObject({
        code: SubsonicErrorCode.notFound,
        message: `${NOT_FOUND_WORDS[resource]} not found`,
      })
    }
    const words = Object.fromEntries(
      (["track", "album", "artist", "playlist", "playlist_entry", "user", "image"] as const).map((resource) => [
        resource,
        subsonicAnswerOf(new NotFound({ message: "x", resource }))?.message,
      ]),
    )
    expect(words).toEqual({
      track: "Song not found",
      album: "Album not found",
      artist: "Artist not found",
      playlist: "Playlist not found",
      playlist_entry: "Playlist not found",
      user: "User not found",
      image: "Cover art not found",
    })
  })

  it("a system playlist's Conflict is 50; a smart playlist's 50 with its message; any other Conflict is 0 with its message", () => {
    expect(subsonicAnswerOf(new Conflict({ message: "whatever", reason: "system_playlist" }))).toEqual({
      code: SubsonicErrorCode.notAuthorized,
      message: "System playlists are rebuilt by the server and cannot be edited",
    })
    expect(subsonicAnswerOf(new Conflict({ message: "filled from its rules", reason: "smart_playlist" }))).toEqual({
      code: SubsonicErrorCode.notAuthorized,
      message: "filled from its rules",
    })
    for (const reason of ConflictReason.literals.filter(
      (reason) => reason !== "system_playlist" && reason !== "smart_playlist",
    )) {
      expect(subsonicAnswerOf(new Conflict({ message: "system playlists", reason }))).toEqual({
        code: SubsonicErrorCode.generic,
        message: "system playlists",
      })
    }
  })

  it("Forbidden is 50, InvalidRequest 0, a Subsonic failure itself, throttling 40 with 429 and Retry-After", () => {
    expect(subsonicAnswerOf(new Forbidden({ message: "admins only" }))).toEqual({
      code: SubsonicErrorCode.notAuthorized,
      message: "admins only",
    })
    expect(subsonicAnswerOf(new InvalidRequest({ message: "bad name" }))).toEqual({
      code: SubsonicErrorCode.generic,
      message: "bad name",
    })
    expect(
      subsonicAnswerOf(new SubsonicFailure({ code: SubsonicErrorCode.missingParameter, message: "missing" })),
    ).toEqual({ code: SubsonicErrorCode.missingParameter, message: "missing" })
    expect(subsonicAnswerOf(new SubsonicThrottled({ retryAfterSeconds: 42 }))).toEqual({
      code: SubsonicErrorCode.wrongCredentials,
      message: "Too many failed sign-ins; try again later",
      httpStatus: 429,
      headers: { "retry-after": "42" },
    })
  })

  it("anything else is not an answer (the caller logs it and says Internal error)", () => {
    for (const error of [new Internal({ message: "sql" }), new Error("boom"), { _tag: "NotFound", message: "x" }]) {
      expect(subsonicAnswerOf(error)).toBeUndefined()
    }
  })

  it("no Subsonic source reads an error's message text or compares a _tag string", () => {
    const dir = fileURLToPath(new URL("../../src/subsonic/", import.meta.url))
    const files = fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
    expect(files.length).toBeGreaterThan(10)
    const forbidden = [/\bmessage\s*\.\s*(includes|startsWith|endsWith|match|indexOf|search)\s*\(/, /_tag\s*[!=]==?/]
    // What the adapter once did: both forms are caught.
    const before = [
      `notFound((error as { message: string }).message.includes("track") ? "Song" : "Playlist")`,
      `(error) => (error as { _tag?: string })._tag === "NotFound"`,
    ]
    for (const [i, line] of before.entries()) expect(forbidden[i]!.test(line)).toBe(true)
    const offences = files.flatMap((file) => {
      const text = fs.readFileSync(path.join(dir, file), "utf8")
      return forbidden.filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern}`)
    })
    expect(offences).toEqual([])
  })
})
