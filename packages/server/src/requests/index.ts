export { AdminRequestsHttpLive, ManagerHttpLive, RequestsHttpLive } from "./RequestsHttp.js"
export { RequestsService } from "./RequestsService.js"
