export { PlayQueueHttpLive } from "./PlayQueueHttp.js"
export { PlayQueueService } from "./PlayQueueService.js"
