export { PlaylistCover } from "./PlaylistCover.js"
export type { SystemSnapshot } from "./PlaylistRepository.js"
export { PlaylistsHttpLive } from "./PlaylistsHttp.js"
export { PlaylistsService } from "./PlaylistsService.js"
