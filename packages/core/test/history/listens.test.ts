import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  exportLine,
  familyOfSource,
  importPlaySource,
  isImportPlaySource,
  isListensEntry,
  JsonRecordSplitter,
  listenBrainzRecord,
  MalformedJson,
  spotifyRecord,
} from "../../src/index.js"

/** Feeds `text` to a splitter cut at `cuts` (positions), answering every record parsed. */
const splitAll = (text: string, cuts: ReadonlyArray<number> = []): Array<unknown> => {
  const splitter = new JsonRecordSplitter()
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b)
  const records: Array<string> = []
  let from = 0
  for (const point of [...points, text.length]) {
    records.push(...splitter.feed(text.slice(from, point)))
    from = point
  }
  splitter.end()
  return records.map((record) => JSON.parse(record))
}

const jsonObject = fc.dictionary(
  fc.string({ maxLength: 6 }),
  fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 })),
  { maxKeys: 4 },
)

describe("JsonRecordSplitter", () => {
  it("an array's elements come out whole however the text is cut", () =>
    fc.assert(
      fc.property(fc.array(jsonObject, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (objects, cuts) => {
        expect(splitAll(JSON.stringify(objects, null, 1), cuts)).toEqual(objects)
      }),
    ))

  it("JSON lines come out one record per line however the text is cut", () =>
    fc.assert(
      fc.property(
        fc.array(jsonObject, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (objects, cuts) => {
          const text = `${objects.map((object) => JSON.stringify(object)).join("\n")}\n`
          expect(splitAll(text, cuts)).toEqual(objects)
        },
      ),
    ))

  it("strings holding braces, brackets and escaped quotes do not end a record", () => {
    const objects = [{ a: '}{"]', b: "\\" }, { c: "[" }]
    expect(splitAll(JSON.stringify(objects), [3, 5, 9, 14])).toEqual(objects)
  })

  it("a file that is not JSON records, or cut short, is malformed", () => {
    expect(() => splitAll("hello")).toThrow(MalformedJson)
    expect(() => splitAll('[{"a":1}')).toThrow(MalformedJson)
    expect(() => splitAll('[{"a":1},')).toThrow(MalformedJson)
    expect(() => splitAll('{"a":')).toThrow(MalformedJson)
    expect(() => splitAll("[1, 2]")).toThrow(MalformedJson)
    expect(() => splitAll("")).toThrow(MalformedJson)
    expect(() => splitAll('[{"a":1}] x')).toThrow(MalformedJson)
  })
})

describe("ListenBrainz records", () => {
  it("reads listened_at (seconds), names and the recording MBID", () => {
    const parsed = listenBrainzRecord({
      listened_at: 1_700_000_000,
      track_metadata: {
        artist_name: " Nina Simone ",
        track_name: "Sinnerman",
        release_name: "Pastel Blues",
        additional_info: { recording_mbid: "5A1B2C3D-0000-4000-8000-000000000001" },
      },
    })
    expect(parsed).toEqual({
      _tag: "listen",
      listen: {
        artist: "Nina Simone",
        title: "Sinnerman",
        album: "Pastel Blues",
        recording_mbid: "5a1b2c3d-0000-4000-8000-000000000001",
        started_at_ms: 1_700_000_000_000,
        ms_played: null,
      },
    })
  })

  it("takes the MBID from mbid_mapping when additional_info has none, and ignores a malformed one", () => {
    const mbid = "11111111-2222-4333-8444-555555555555"
    const base = { listened_at: 1_600_000_000, track_metadata: { artist_name: "A", track_name: "T" } }
    const mapped = listenBrainzRecord({
      ...base,
      track_metadata: { ...base.track_metadata, mbid_mapping: { recording_mbid: mbid } },
    })
    expect(mapped._tag === "listen" && mapped.listen.recording_mbid).toBe(mbid)
    const bad = listenBrainzRecord({
      ...base,
      track_metadata: { ...base.track_metadata, additional_info: { recording_mbid: "not-an-mbid" } },
    })
    expect(bad._tag === "listen" && bad.listen.recording_mbid).toBeNull()
  })

  it("a listen without a title is incomplete; a record without listened_at is not a listen at all", () => {
    expect(listenBrainzRecord({ listened_at: 1_600_000_000, track_metadata: { artist_name: "A" } })._tag).toBe(
      "incomplete",
    )
    expect(listenBrainzRecord({ track_metadata: { artist_name: "A", track_name: "T" } })._tag).toBe("invalid")
    expect(listenBrainzRecord({ ts: "2020-01-01T00:00:00Z" })._tag).toBe("invalid")
    expect(listenBrainzRecord({ listened_at: -5, track_metadata: { artist_name: "A", track_name: "T" } })._tag).toBe(
      "invalid",
    )
  })

  it("an export line reads back as the same listen, to the second", () =>
    fc.assert(
      fc.property(
        fc.record({
          started: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
          played: fc.option(fc.nat({ max: 1_000_000 })),
          artist: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ""),
          title: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ""),
        }),
        ({ started, played, artist, title }) => {
          const line = exportLine({
            started_at_ms: started,
            artist,
            title,
            album: null,
            recording_mbid: null,
            track_duration_ms: 200_000,
            duration_played_ms: played,
            track_id: "00000000-0000-4000-8000-000000000000",
            source: null,
            skipped: false,
          })
          const parsed = listenBrainzRecord(JSON.parse(line))
          expect(parsed).toEqual({
            _tag: "listen",
            listen: {
              artist: artist.trim(),
              title: title.trim(),
              album: null,
              recording_mbid: null,
              started_at_ms: Math.floor(started / 1000) * 1000,
              ms_played: played,
              tonearm_track_id: "00000000-0000-4000-8000-000000000000",
            },
          })
        },
      ),
    ))
})

describe("Spotify records", () => {
  const entry = {
    ts: "2021-06-01T10:00:00Z",
    ms_played: 90_500,
    master_metadata_track_name: "Hyperballad",
    master_metadata_album_artist_name: "Björk",
    master_metadata_album_album_name: "Post",
    episode_name: null,
  }

  it("a listen starts ms_played before ts (ts is when the stream ended)", () => {
    expect(spotifyRecord(entry)).toEqual({
      _tag: "listen",
      listen: {
        artist: "Björk",
        title: "Hyperballad",
        album: "Post",
        recording_mbid: null,
        started_at_ms: Date.UTC(2021, 5, 1, 10, 0, 0) - 90_500,
        ms_played: 90_500,
      },
    })
  })

  it("podcast episodes and videos (no track name) are ignored, not counted", () => {
    expect(spotifyRecord({ ...entry, master_metadata_track_name: null, episode_name: "Episode 1" })._tag).toBe(
      "ignored",
    )
  })

  it("reads the short account-data history (endTime, msPlayed) too", () => {
    const parsed = spotifyRecord({
      endTime: "2020-02-03 04:05",
      artistName: "Air",
      trackName: "La femme d'argent",
      msPlayed: 1000,
    })
    expect(parsed._tag === "listen" && parsed.listen.started_at_ms).toBe(Date.UTC(2020, 1, 3, 4, 5) - 1000)
  })

  it("a record of another export is not a Spotify listen", () => {
    expect(spotifyRecord({ listened_at: 1, track_metadata: {} })._tag).toBe("invalid")
    expect(spotifyRecord({ ...entry, ts: "yesterday" })._tag).toBe("invalid")
  })
})

describe("zip entries", () => {
  it("Spotify: the audio history files only", () => {
    expect(
      isListensEntry("spotify_extended", "Spotify Extended Streaming History/Streaming_History_Audio_2019_3.json"),
    ).toBe(true)
    expect(
      isListensEntry("spotify_extended", "Spotify Extended Streaming History/Streaming_History_Video_2019.json"),
    ).toBe(false)
    expect(
      isListensEntry("spotify_extended", "Spotify Extended Streaming History/ReadMeFirst_ExtendedStreamingHistory.pdf"),
    ).toBe(false)
    expect(isListensEntry("spotify_extended", "__MACOSX/._Streaming_History_Audio_2019_3.json")).toBe(false)
  })

  it("ListenBrainz: the listens files, not the user or feedback files", () => {
    expect(isListensEntry("listenbrainz_export", "listens/2020/1.jsonl")).toBe(true)
    expect(isListensEntry("listenbrainz_export", "user.json")).toBe(false)
    expect(isListensEntry("listenbrainz_export", "feedback.jsonl")).toBe(false)
  })
})

describe("imported plays and the metrics", () => {
  it("an imported play's source is never the metrics' baseline family (nor any family)", () => {
    for (const source of ["listenbrainz_export", "lastfm_api", "spotify_extended", "navidrome_db"] as const) {
      expect(importPlaySource(source)).toBe(`import:${source}`)
      expect(isImportPlaySource(importPlaySource(source))).toBe(true)
      expect(familyOfSource(importPlaySource(source))).toBeUndefined()
    }
    expect(familyOfSource(null)).toBe("baseline")
    expect(isImportPlaySource(null)).toBe(false)
    expect(isImportPlaySource("album:x")).toBe(false)
  })
})
