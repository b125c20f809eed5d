export { SmartPlaylistRepository } from "./SmartPlaylistRepository.js"
export { SmartPlaylistsHttpLive } from "./SmartPlaylistsHttp.js"
export { SmartPlaylistsService } from "./SmartPlaylistsService.js"
