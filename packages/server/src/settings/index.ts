export { currentClient } from "./currentClient.js"
export { TrustedProxies } from "./TrustedProxies.js"
export { TrustedProxiesHttpLive } from "./TrustedProxiesHttp.js"
