export { HomeHttpLive } from "./HomeHttp.js"
export { HomeService } from "./HomeService.js"
