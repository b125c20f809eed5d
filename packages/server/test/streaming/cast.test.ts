import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { Effect } from "effect"
import { SAMPLE } from "../../fixtures/wild.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { makeLibrary, scanNow, wildSamples } from "../support/library.js"
import { raw, rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const wild = (await wildSamples()).root
// The .opus is Ogg Vorbis inside: the MIME type follows the extension, not the codec.
const library = makeLibrary({
  "A/B/01 One.mp3": path.join(wild, SAMPLE.cutMp3),
  "A/B/02 Two.flac": path.join(wild, SAMPLE.flacPlain),
  "A/C/03.opus": path.join(wild, SAMPLE.ogg),
})

const trackBySuffix = (suffix: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string; title: string }>`SELECT id, title FROM tracks WHERE path LIKE ${`%${suffix}`}`,
      (rows) => rows[0]!,
    ),
  )

const post = (token: string, body: unknown, query = "", headers: Record<string, string> = {}) =>
  raw("POST", `/api/cast/stream-token${query}`, {
    body: JSON.stringify(body),
    token,
    headers,
  })

layer(TestServerLive({ libraryDir: library }), { excludeTestServices: true, timeout: "90 seconds" })(
  "speaker casting",
  (it) => {
    it.effect("stream-token answers token, exp, an absolute url with an extension suffix, mime and title", () =>
      Effect.gen(function* () {
        const admin = yield* signUpFirstAdmin("admin")
        yield* scanNow()
        const track = yield* trackBySuffix("01 One.mp3")
        const before = Math.floor(Date.now() / 1000)
        const response = yield* post(admin.token, { track_id: track.id }, "", { host: "music.lan:4533" })
        expect(response.status).toBe(200)
        const body = response.json as { token: string; exp: number; url: string; mime: string; title: string }
        expect(body.exp - before).toBeGreaterThanOrEqual(21_600 - 2)
        expect(body.exp - before).toBeLessThanOrEqual(21_600 + 2)
        expect(body.url).toBe(
          `http://music.lan:4533/api/tracks/${track.id}/stream.mp3?exp=${body.exp}&token=${body.token}`,
        )
        expect(body.mime).toBe("audio/mpeg")
        expect(body.title).toBe(track.title)
      }),
    )

    it.effect("the url's scheme and host come from X-Forwarded-Proto and X-Forwarded-Host when present", () =>
      Effect.gen(function* () {
        const admin = yield* adminLogin
        const track = yield* trackBySuffix("02 Two.flac")
        const response = yield* post(admin, { track_id: track.id }, "", {
          host: "127.0.0.1:9999",
          "x-forwarded-proto": "https",
          "x-forwarded-host": "music.example.org",
        })
        const body = response.json as { url: string; mime: string }
        expect(body.url.startsWith(`https://music.example.org/api/tracks/${track.id}/stream.flac?exp=`)).toBe(true)
        expect(body.mime).toBe("audio/flac")
      }),
    )

    it.effect("expSeconds is clamped to [60, 86400], in the body or the query", () =>
      Effect.gen(function* () {
        const admin = yield* adminLogin
        const track = yield* trackBySuffix("01 One.mp3")
        const lifetime = (response: { json: unknown }) =>
          (response.json as { exp: number }).exp - Math.floor(Date.now() / 1000)
        const near = (value: number, target: number) => expect(Math.abs(value - target)).toBeLessThanOrEqual(2)
        near(lifetime(yield* post(admin, { track_id: track.id, expSeconds: 5 })), 60)
        near(lifetime(yield* post(admin, { track_id: track.id, expSeconds: 10_000_000 })), 86_400)
        near(lifetime(yield* post(admin, { track_id: track.id, expSeconds: 600 })), 600)
        near(lifetime(yield* post(admin, { track_id: track.id }, "?expSeconds=120")), 120)
        near(lifetime(yield* post(admin, { track_id: track.id }, "?expSeconds=1")), 60)
      }),
    )

    it.effect("a malformed track UUID is 400 invalid_track_id; a missing track is 404; no session is 401", () =>
      Effect.gen(function* () {
        const admin = yield* adminLogin
        for (const trackId of ["nope", "", "1234", "6f1c2d9e-8b7a-4c3d-9e2f"]) {
          const response = yield* post(admin, { track_id: trackId })
          expect(response.status).toBe(400)
          expect(response.json).toMatchObject({ error: { code: "invalid_track_id" } })
        }
        const missing = yield* post(admin, { track_id: crypto.randomUUID() })
        expect(missing.status).toBe(404)
        expect(missing.json).toMatchObject({ error: { code: "not_found" } })
        const anonymous = yield* rawJson("POST", "/api/cast/stream-token", { track_id: "nope" })
        expect(anonymous.status).toBe(401)
      }),
    )

    it.effect("the SDK gets a typed cast token for the contract", () =>
      Effect.gen(function* () {
        const client = yield* makeTonearmClient({ credentials: bearer(yield* adminLogin) })
        const track = yield* trackBySuffix("03.opus")
        const cast = yield* client.cast.streamToken({ payload: { track_id: track.id, expSeconds: 300 }, urlParams: {} })
        expect(cast.url).toContain(`/api/tracks/${track.id}/stream.opus?exp=${cast.exp}&token=${cast.token}`)
        expect(cast.mime).toBe("audio/opus")
        const invalid = yield* client.cast
          .streamToken({ payload: { track_id: "bad" }, urlParams: {} })
          .pipe(Effect.flip)
        expect(invalid._tag).toBe("InvalidTrackId")
      }),
    )
  },
)

const adminLogin = Effect.gen(function* () {
  const anonymous = yield* makeTonearmClient()
  return (yield* anonymous.auth.login({ payload: { username: "admin", password: "correct horse battery" } })).token
})
