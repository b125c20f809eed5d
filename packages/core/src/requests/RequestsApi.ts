import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, envelopeOf, MissingDefaults, NotFound } from "../errors.js"
import { AdminAuthentication, Authentication } from "../http/Authentication.js"
import {
  AcquisitionRequest,
  AdminRequestsQuery,
  ManagerSettings,
  ManagerSettingsInput,
  NewRequest,
  RejectRequest,
  RequestId,
} from "./Requests.js"

const requestId = HttpApiSchema.param("id", RequestId)

/** A listener asks for music the library does not hold (spec "Request (acquisition)"). */
export class RequestsApi extends HttpApiGroup.make("requests")
  .add(
    HttpApiEndpoint.post("create", "/api/requests")
      .setPayload(NewRequest)
      .addSuccess(AcquisitionRequest, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Creates a pending request (approved at once with auto-approve). While a pending or approved request for the same MBID exists, that row is answered instead (no duplicate).",
      ),
  )
  .add(HttpApiEndpoint.get("list", "/api/requests").addSuccess(Schema.Array(AcquisitionRequest)))
  .add(
    HttpApiEndpoint.post("cancel")`/api/requests/${requestId}/cancel`
      .addSuccess(AcquisitionRequest)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict))
      .annotate(OpenApi.Description, "The requester cancels an open request; another user's request is 404."),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Requests") {}

export class AdminRequestsApi extends HttpApiGroup.make("adminRequests")
  .add(
    HttpApiEndpoint.get("list", "/api/admin/requests")
      .setUrlParams(AdminRequestsQuery)
      .addSuccess(Schema.Array(AcquisitionRequest)),
  )
  .add(
    HttpApiEndpoint.post("approve")`/api/admin/requests/${requestId}/approve`
      .addSuccess(AcquisitionRequest)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict))
      .annotate(
        OpenApi.Description,
        "Stores the approval, then tries the add to the manager once; never fails when the manager is down (the reconciler re-sends it).",
      ),
  )
  .add(
    HttpApiEndpoint.post("reject")`/api/admin/requests/${requestId}/reject`
      .setPayload(RejectRequest)
      .addSuccess(AcquisitionRequest)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict)),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: requests") {}

export class ManagerApi extends HttpApiGroup.make("manager")
  .add(HttpApiEndpoint.get("get", "/api/admin/manager").addSuccess(ManagerSettings))
  .add(
    HttpApiEndpoint.put("set", "/api/admin/manager")
      .setPayload(ManagerSettingsInput)
      .addSuccess(ManagerSettings)
      .addError(envelopeOf(MissingDefaults))
      .annotate(
        OpenApi.Description,
        "Saves the manager (Lidarr API v1) settings; a URL without a root folder and both profile ids is 400 `missing_defaults`.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: music manager") {}
