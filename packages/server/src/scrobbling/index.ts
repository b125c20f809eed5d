export { ScrobblersHttpLive } from "./ScrobblingHttp.js"
export { ScrobblingService } from "./ScrobblingService.js"
