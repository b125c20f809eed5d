export { type ConnectionFacts, TrustedProxies } from "./TrustedProxies.js"
export { TrustedProxiesHttpLive } from "./TrustedProxiesHttp.js"
