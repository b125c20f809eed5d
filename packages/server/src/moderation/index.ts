export { AcquisitionManager } from "./AcquisitionManager.js"
export { ModerationHttpLive, QuarantineHttpLive } from "./ModerationHttp.js"
export { QuarantineService } from "./QuarantineService.js"
