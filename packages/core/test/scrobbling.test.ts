import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  lastfmSignature,
  lastfmTrackParams,
  listenBrainzBody,
  maskSecret,
  readLastfmAnswer,
  readListenBrainzAnswer,
  retryAfterMsOf,
  type ScrobbleTrack,
  scrobbleRetryDelayMs,
  signLastfm,
} from "../src/scrobbling/Scrobbling.js"

const track: ScrobbleTrack = {
  artist: "Björk feat. Someone",
  title: "Jóga",
  album: "Homogenic",
  album_artist: "Björk",
  track_number: 3,
  duration_ms: 305_400,
  recording_mbid: "0b5bb6a0-0000-4000-8000-000000000001",
  release_mbid: null,
  started_at_ms: 1_700_000_000_999,
}

describe("Last.fm signature", () => {
  // Fixed vectors: md5 of the sorted name+value pairs then the secret, worked out by hand outside this code.
  it("is the md5 of the sorted name-value pairs followed by the secret", () => {
    expect(lastfmSignature({ token: "tok123", method: "auth.getSession", api_key: "key" }, "secret")).toBe(
      "c1b23de114be8dfab9ce965941a59036",
    )
  })

  it("hashes UTF-8 and leaves format and callback out", () => {
    const params = {
      track: "Jóga",
      artist: "Björk",
      album: "Björk",
      timestamp: "100",
      sk: "SK",
      method: "track.scrobble",
      api_key: "K",
    }
    const expected = "e9e70809afd6703669677fe4bf21fcb0"
    expect(lastfmSignature(params, "S")).toBe(expected)
    expect(lastfmSignature({ ...params, format: "json", callback: "x" }, "S")).toBe(expected)
    const signed = signLastfm(params, "S")
    expect(signed.api_sig).toBe(expected)
    expect(signed.format).toBe("json")
  })

  it("changes with any parameter or the secret", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (value, other) => {
        fc.pre(value !== other)
        expect(lastfmSignature({ artist: value }, "s")).not.toBe(lastfmSignature({ artist: other }, "s"))
        expect(lastfmSignature({ artist: value }, value)).not.toBe(lastfmSignature({ artist: value }, `${value}x`))
      }),
    )
  })
})

describe("what is sent", () => {
  it("ListenBrainz: a listen is `single` with the start in Unix seconds; now playing has no time", () => {
    expect(listenBrainzBody("listen", track, { version: "1.2.3" })).toEqual({
      listen_type: "single",
      payload: [
        {
          listened_at: 1_700_000_000,
          track_metadata: {
            artist_name: "Björk feat. Someone",
            track_name: "Jóga",
            release_name: "Homogenic",
            additional_info: {
              duration_ms: 305_400,
              submission_client: "Tonearm",
              submission_client_version: "1.2.3",
              recording_mbid: "0b5bb6a0-0000-4000-8000-000000000001",
              tracknumber: 3,
            },
          },
        },
      ],
    })
    const playing = listenBrainzBody("now_playing", { ...track, album: null, recording_mbid: null }, { version: "1" })
    expect(playing.listen_type).toBe("playing_now")
    expect(playing.payload[0]).not.toHaveProperty("listened_at")
    expect(playing.payload[0]!.track_metadata).not.toHaveProperty("release_name")
    expect(playing.payload[0]!.track_metadata.additional_info).not.toHaveProperty("recording_mbid")
  })

  it("Last.fm: track.scrobble carries the start as timestamp; updateNowPlaying does not", () => {
    expect(lastfmTrackParams("listen", track, { apiKey: "K", sessionKey: "SK" })).toEqual({
      method: "track.scrobble",
      api_key: "K",
      sk: "SK",
      artist: "Björk feat. Someone",
      track: "Jóga",
      duration: "305",
      timestamp: "1700000000",
      album: "Homogenic",
      albumArtist: "Björk",
      trackNumber: "3",
      mbid: "0b5bb6a0-0000-4000-8000-000000000001",
    })
    const playing = lastfmTrackParams(
      "now_playing",
      { ...track, album_artist: track.artist },
      { apiKey: "K", sessionKey: "SK" },
    )
    expect(playing.method).toBe("track.updateNowPlaying")
    expect(playing).not.toHaveProperty("timestamp")
    expect(playing).not.toHaveProperty("albumArtist")
  })
})

describe("retries", () => {
  it("the first retry with the shipped 30 s base comes within 2 minutes, then doubles to the cap", () => {
    expect(scrobbleRetryDelayMs(1, 30_000, 3_600_000)).toBe(30_000)
    expect(scrobbleRetryDelayMs(1, 30_000, 3_600_000)).toBeLessThanOrEqual(120_000)
    expect(scrobbleRetryDelayMs(2, 30_000, 3_600_000)).toBe(60_000)
    expect(scrobbleRetryDelayMs(5, 30_000, 3_600_000)).toBe(480_000)
    expect(scrobbleRetryDelayMs(500, 30_000, 3_600_000)).toBe(3_600_000)
  })

  it("reads Retry-After and ListenBrainz's X-RateLimit-Reset-In as seconds", () => {
    expect(retryAfterMsOf({ "retry-after": "7" })).toBe(7000)
    expect(retryAfterMsOf({ "x-ratelimit-reset-in": "2" })).toBe(2000)
    expect(retryAfterMsOf({ "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" })).toBeUndefined()
    expect(retryAfterMsOf({})).toBeUndefined()
  })
})

describe("reading the answers", () => {
  it("ListenBrainz: 2xx sent, 401 a refused token, 400 never, 429 and 5xx later", () => {
    expect(readListenBrainzAnswer(200, { status: "ok" })._tag).toBe("sent")
    expect(readListenBrainzAnswer(401, { code: 401, error: "Invalid authorization token." })).toEqual({
      _tag: "auth",
      message: "ListenBrainz answered 401: Invalid authorization token.",
    })
    expect(readListenBrainzAnswer(400, { error: "bad listen" })._tag).toBe("rejected")
    expect(readListenBrainzAnswer(429, {}, { "x-ratelimit-reset-in": "3" })).toEqual({
      _tag: "retry",
      message: "ListenBrainz answered 429",
      retryAfterMs: 3000,
    })
    expect(readListenBrainzAnswer(503, undefined)._tag).toBe("retry")
  })

  it("Last.fm: error codes decide, whatever the status", () => {
    expect(readLastfmAnswer(200, { scrobbles: { "@attr": { accepted: 1, ignored: 0 } } })._tag).toBe("sent")
    expect(readLastfmAnswer(200, { nowplaying: {} })._tag).toBe("sent")
    expect(readLastfmAnswer(403, { error: 9, message: "Invalid session key" })).toEqual({
      _tag: "auth",
      message: "Last.fm error 9: Invalid session key",
    })
    expect(readLastfmAnswer(200, { error: 4, message: "Authentication Failed" })._tag).toBe("auth")
    expect(readLastfmAnswer(503, { error: 11, message: "Service Offline" })._tag).toBe("retry")
    expect(readLastfmAnswer(200, { error: 29, message: "Rate limit" })._tag).toBe("retry")
    expect(readLastfmAnswer(400, { error: 6, message: "Invalid parameters" })._tag).toBe("rejected")
    expect(readLastfmAnswer(502, undefined)._tag).toBe("retry")
  })

  it("Last.fm: an ignored scrobble will never be taken", () => {
    const ignored = {
      scrobbles: {
        "@attr": { accepted: 0, ignored: 1 },
        scrobble: { ignoredMessage: { code: "3", "#text": "Timestamp too old" } },
      },
    }
    expect(readLastfmAnswer(200, ignored)).toEqual({
      _tag: "rejected",
      message: "Last.fm ignored it: Timestamp too old",
    })
  })
})

describe("secrets in answers", () => {
  it("a mask never holds more than the last four characters", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (secret) => {
        const masked = maskSecret(secret)
        expect(masked.replace("…", "").length).toBeLessThanOrEqual(4)
        if (secret.length >= 5) expect(masked).not.toContain(secret)
      }),
    )
  })
})
