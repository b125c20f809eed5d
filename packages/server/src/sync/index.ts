export { SyncHttpLive } from "./SyncHttp.js"
export { SyncService } from "./SyncService.js"
