export { CoverRefetchHttpLive, CoverSourcesHttpLive, TagSourcesHttpLive } from "./EnrichmentHttp.js"
export { EnrichmentService, type ProviderCandidate, type ProviderSimilarSource } from "./EnrichmentService.js"
export { ProviderHttp } from "./ProviderHttp.js"
