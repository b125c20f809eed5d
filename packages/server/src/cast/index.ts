export { CastRenderersHttpLive } from "./CastRenderersHttp.js"
export { CastRenderersService } from "./CastRenderersService.js"
