/** Helpers of the history import tests: library tracks, exports built from them, uploads, waiting for a job. */
import { crc32, deflateRawSync } from "node:zlib"
import { SqlClient } from "@effect/sql"
import type { ImportStatus } from "@tonearm/core"
import { Effect, Schedule } from "effect"
import type { SignedIn } from "../support/accounts.js"
import { raw } from "../support/raw.js"

export interface LibraryTrack {
  readonly id: string
  readonly title: string
  readonly artist: string
  readonly album: string
  readonly duration_ms: number
}

/** The library's tracks, in path order. */
export const libraryTracks = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<LibraryTrack>`
    SELECT t.id, t.title, a.name AS artist, al.title AS album, t.duration_ms
    FROM tracks t JOIN artists a ON a.id = t.artist_id JOIN albums al ON al.id = t.album_id ORDER BY t.path`
})

/** A ListenBrainz listen (the export's shape). */
export const lbListen = (artist: string, title: string, listenedAtSeconds: number, album: string | null = null) => ({
  listened_at: listenedAtSeconds,
  track_metadata: { artist_name: artist, track_name: title, release_name: album, additional_info: {} },
})

/** A Spotify extended streaming history entry; `endMs` is when the stream ended. */
export const spotifyEntry = (artist: string | null, title: string | null, endMs: number, msPlayed: number) => ({
  ts: new Date(endMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
  platform: "android",
  ms_played: msPlayed,
  conn_country: "SE",
  master_metadata_track_name: title,
  master_metadata_album_artist_name: artist,
  master_metadata_album_album_name: "Some album",
  spotify_track_uri: title === null ? null : "spotify:track:x",
  episode_name: title === null ? "An episode" : null,
  episode_show_name: title === null ? "A show" : null,
  reason_start: "trackdone",
  reason_end: "trackdone",
  shuffle: false,
  skipped: null,
})

/** A zip of the given files (deflated), written by hand: what an export download looks like. */
export const makeZip = (files: Record<string, string | Uint8Array>): Buffer => {
  const locals: Array<Buffer> = []
  const centrals: Array<Buffer> = []
  let offset = 0
  for (const [name, content] of Object.entries(files)) {
    const data = typeof content === "string" ? Buffer.from(content) : Buffer.from(content)
    const packed = deflateRawSync(data)
    const nameBytes = Buffer.from(name)
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0x0800, 6)
    local.writeUInt16LE(8, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(packed.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(nameBytes.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(0x0800, 8)
    central.writeUInt16LE(8, 10)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(packed.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(nameBytes.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, nameBytes, packed)
    centrals.push(central, nameBytes)
    offset += local.length + nameBytes.length + packed.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(Object.keys(files).length, 8)
  end.writeUInt16LE(Object.keys(files).length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/** A multipart body with a `file` part and any fields, as a browser sends it. */
export const multipart = (
  file: Uint8Array | string,
  fields: Record<string, string> = {},
  fileName = "export.json",
  fileType = "application/octet-stream",
) => {
  const boundary = `----tonearm${Math.random().toString(16).slice(2)}`
  const parts: Array<Buffer> = []
  for (const [key, value] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`))
  parts.push(
    Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${fileName}"\r\ncontent-type: ${fileType}\r\n\r\n`,
    ),
    Buffer.from(file),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  )
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** Uploads an export over raw HTTP (`query` e.g. `?source=spotify_extended`). */
export const upload = (
  who: SignedIn,
  file: Uint8Array | string,
  fields: Record<string, string>,
  options: {
    readonly query?: string
    readonly path?: string
    readonly fileName?: string
    readonly fileType?: string
  } = {},
) => {
  const form = multipart(file, fields, options.fileName, options.fileType)
  return raw("POST", `${options.path ?? "/api/me/imports"}${options.query ?? ""}`, {
    body: form.body,
    headers: { "content-type": form.contentType, "content-length": String(form.body.length) },
    token: who.token,
  })
}

/** Uploads and answers the new import's id (fails the test on anything but 202). */
export const startImport = (who: SignedIn, file: Uint8Array | string, source: string) =>
  Effect.gen(function* () {
    const response = yield* upload(who, file, { source })
    if (response.status !== 202) return yield* Effect.dieMessage(`upload answered ${response.status}: ${response.text}`)
    return (response.json as { id: string }).id
  })

/** Polls the import until it is done or failed. */
export const finished = (who: SignedIn, id: string) =>
  Effect.gen(function* () {
    const status = yield* who.client.imports.get({ path: { id: id as ImportStatus["id"] } })
    if (status.state === "queued" || status.state === "running") return yield* Effect.fail("pending" as const)
    return status
  }).pipe(
    Effect.retry({ while: (error) => error === "pending", schedule: Schedule.spaced("100 millis"), times: 1_200 }),
    Effect.orDie,
  )

/** The user's plays, oldest first. */
export const playsOf = (userId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{
        track_id: string
        started_at: Date
        ended_at: Date | null
        duration_played_ms: number | null
        track_duration_ms: number
        skipped: boolean
        source: string | null
        client_id: string
        pick_kind: string | null
        device_class: string | null
      }>`SELECT track_id, started_at, ended_at, duration_played_ms, track_duration_ms, skipped, source, client_id,
              pick_kind, device_class
       FROM play_events WHERE user_id = ${userId} ORDER BY started_at, id`,
  )
