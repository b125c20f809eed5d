import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../http/Authentication.js"

/** An OpenSubsonic API key's id. */
export const ApiKeyId = Schema.UUID.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

/** The Subsonic app password, shown once (token auth needs it recoverable, so it is stored encrypted). */
export class SubsonicPassword extends Schema.Class<SubsonicPassword>("SubsonicPassword")({
  password: Schema.String,
}) {}

export class NewApiKeyRequest extends Schema.Class<NewApiKeyRequest>("NewApiKeyRequest")({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(100)),
}) {}

/** The created key: the only time `key` is shown (only its SHA-256 is stored). */
export class CreatedApiKey extends Schema.Class<CreatedApiKey>("CreatedApiKey")({
  id: ApiKeyId,
  name: Schema.String,
  key: Schema.String,
  created_at: Schema.DateTimeUtc,
}) {}

export class ApiKeyRow extends Schema.Class<ApiKeyRow>("ApiKeyRow")({
  id: ApiKeyId,
  name: Schema.String,
  created_at: Schema.DateTimeUtc,
  last_used_at: Schema.NullOr(Schema.DateTimeUtc),
}) {}

const apiKeyId = HttpApiSchema.param("id", ApiKeyId)

/** The caller's credentials for Subsonic apps (contract "Subsonic compatibility"). */
export class SubsonicCredentialsApi extends HttpApiGroup.make("subsonicCredentials")
  .add(
    HttpApiEndpoint.post("createSubsonicPassword", "/api/me/subsonic-password")
      .addSuccess(SubsonicPassword, { status: 201 })
      .annotate(
        OpenApi.Description,
        "A new random app password for Subsonic token auth (u+t+s), shown once; replaces the previous one.",
      ),
  )
  .add(
    HttpApiEndpoint.post("createApiKey", "/api/me/api-keys")
      .setPayload(NewApiKeyRequest)
      .addSuccess(CreatedApiKey, { status: 201 }),
  )
  .add(HttpApiEndpoint.get("listApiKeys", "/api/me/api-keys").addSuccess(Schema.Array(ApiKeyRow)))
  .add(HttpApiEndpoint.del("revokeApiKey")`/api/me/api-keys/${apiKeyId}`.addSuccess(HttpApiSchema.NoContent))
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Subsonic app credentials") {}
