import { type MissingTrack, type PurgeMissingRequest, TrackId } from "@tonearm/core"
import { DateTime, Effect, Schema } from "effect"
import { CliError } from "../errors.js"
import type { PurgeFlags, RemoteFlags } from "../flags.js"
import { asAdmin, printRows } from "../remote.js"
import { runCommand } from "../run.js"

/** The route's largest page. */
const PAGE = 500

/** `tonearm missing list`: every page of GET /api/admin/library/missing. */
export const listMissing = (flags: RemoteFlags) =>
  runCommand(
    asAdmin(flags, ({ client }) =>
      Effect.gen(function* () {
        const tracks: Array<MissingTrack> = []
        for (;;) {
          const page = yield* client.missingTracks.list({ urlParams: { offset: tracks.length, limit: PAGE } })
          tracks.push(...page.items)
          if (page.items.length === 0 || tracks.length >= page.total) break
        }
        yield* printRows(
          flags,
          tracks.map((track) => ({
            ...track,
            added_at: DateTime.formatIso(track.added_at),
            missing_since: DateTime.formatIso(track.missing_since),
          })),
          tracks.map((track) => ({
            missing_since: DateTime.formatIso(track.missing_since),
            artist: track.artist_name,
            album: track.album_title,
            title: track.title,
            id: track.id,
          })),
        )
      }),
    ),
  )

/** `tonearm missing purge --all | TRACK_ID…`. */
export const purgeMissing = (trackIds: ReadonlyArray<string>, flags: PurgeFlags) =>
  runCommand(
    Effect.gen(function* () {
      if (flags.all === trackIds.length > 0)
        return yield* new CliError({ message: "give the track ids to purge, or --all for every missing track" })
      const notIds = trackIds.filter((id) => !Schema.is(TrackId)(id))
      if (notIds.length > 0) return yield* new CliError({ message: `not a track id: ${notIds.join(", ")}` })
      const request: PurgeMissingRequest = flags.all ? {} : { track_ids: trackIds.filter(Schema.is(TrackId)) }
      const result = yield* asAdmin(flags, ({ client }) => client.missingTracks.purge({ payload: request }))
      yield* Effect.sync(() =>
        console.log(
          flags.json
            ? JSON.stringify(result, null, 2)
            : `purged ${result.purged} missing ${result.purged === 1 ? "track" : "tracks"}`,
        ),
      )
    }),
  )
