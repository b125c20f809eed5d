export { LikesService } from "./LikesService.js"
export { LikesHttpLive, PlaysHttpLive } from "./ListeningHttp.js"
export type { TasteColumns } from "./PlayRepository.js"
export { PlaysService } from "./PlaysService.js"
