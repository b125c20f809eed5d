export { ClientDistributionHttpLive } from "./ClientDistributionHttp.js"
export { ClientDistributionService } from "./ClientDistributionService.js"
