import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, envelopeOf, InvalidRequest, NotFound } from "../errors.js"
import { AdminAuthentication } from "../http/Authentication.js"
import { UserId } from "../ids.js"
import { ScanStarted } from "./scan.js"

/** A library's id: a small positive integer (contract "Multiple libraries"). */
export const LibraryId = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 2_147_483_647))
export const LibraryIdValue = Schema.Int.pipe(Schema.between(1, 2_147_483_647))

/** What a listener sees of a library: `GET /api/library/libraries`. */
export class LibraryRef extends Schema.Class<LibraryRef>("LibraryRef")({
  id: Schema.Int,
  name: Schema.String,
}) {}

export class LibraryList extends Schema.Class<LibraryList>("LibraryList")({ items: Schema.Array(LibraryRef) }) {}

/** A library as an admin manages it: `{id, name, path, track_count, scanned_at}`. */
export class Library extends Schema.Class<Library>("Library")({
  id: Schema.Int,
  name: Schema.String,
  path: Schema.NullOr(Schema.String),
  track_count: Schema.Int,
  scanned_at: Schema.NullOr(Schema.DateTimeUtc),
}) {}

export class AdminLibraryList extends Schema.Class<AdminLibraryList>("AdminLibraryList")({
  items: Schema.Array(Library),
}) {}

const LibraryName = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "a library needs a name" }),
  Schema.maxLength(200),
)

/** `POST /api/admin/libraries`: an absolute folder on the server. */
export class AddLibraryRequest extends Schema.Class<AddLibraryRequest>("AddLibraryRequest")({
  name: LibraryName,
  path: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096)),
}) {}

export class RenameLibraryRequest extends Schema.Class<RenameLibraryRequest>("RenameLibraryRequest")({
  name: LibraryName,
}) {}

/** `GET/PUT /api/admin/users/{id}/libraries`. */
export class UserLibraries extends Schema.Class<UserLibraries>("UserLibraries")({
  library_ids: Schema.Array(LibraryIdValue).pipe(Schema.maxItems(10_000)),
}) {}

/** The optional `library_id` filter of the browse routes. */
export const LibraryFilter = { library_id: Schema.optional(LibraryId) }

const libraryId = HttpApiSchema.param("id", LibraryId)
const userId = HttpApiSchema.param("id", UserId)

/** Admins: the libraries and who may hear each. */
export class AdminLibrariesApi extends HttpApiGroup.make("adminLibraries")
  .add(HttpApiEndpoint.get("list", "/api/admin/libraries").addSuccess(AdminLibraryList))
  .add(
    HttpApiEndpoint.post("add", "/api/admin/libraries")
      .setPayload(AddLibraryRequest)
      .addSuccess(Library, { status: 201 })
      .addError(envelopeOf(InvalidRequest))
      .addError(envelopeOf(Conflict))
      .annotate(
        OpenApi.Description,
        "Adds a library at an absolute folder. The path of a removed library brings it back, with its tracks and their ids. Nobody but admins hears a new library until given it (`PUT /api/admin/users/{id}/libraries`); users created later get every library.",
      ),
  )
  .add(
    HttpApiEndpoint.patch("rename")`/api/admin/libraries/${libraryId}`
      .setPayload(RenameLibraryRequest)
      .addSuccess(Library)
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.del("remove")`/api/admin/libraries/${libraryId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "Removes a library: its tracks become missing (likes, playlist entries and plays keep pointing at them) until an admin purges them or the same path is added again.",
      ),
  )
  .add(
    HttpApiEndpoint.post("scan")`/api/admin/libraries/${libraryId}/scan`
      .addSuccess(ScanStarted, { status: 202 })
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict)),
  )
  .add(
    HttpApiEndpoint.get("userLibraries")`/api/admin/users/${userId}/libraries`
      .addSuccess(UserLibraries)
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.put("setUserLibraries")`/api/admin/users/${userId}/libraries`
      .setPayload(UserLibraries)
      .addSuccess(UserLibraries)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(InvalidRequest))
      .annotate(OpenApi.Description, "Which libraries the user hears (admins hear every library whatever this says)."),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: libraries") {}
