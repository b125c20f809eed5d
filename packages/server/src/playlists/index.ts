export { PlaylistCover } from "./PlaylistCover.js"
export { PlaylistsHttpLive } from "./PlaylistsHttp.js"
export { PlaylistsService } from "./PlaylistsService.js"
