export { type LikedAt, LikesService } from "./LikesService.js"
export { LikesHttpLive, PlaysHttpLive } from "./ListeningHttp.js"
export { PlaysService } from "./PlaysService.js"
export type { TasteColumns, TasteText } from "./tasteColumns.js"
