export { EventBus, SUBSCRIBER_BUFFER } from "./EventBus.js"
export { EventsHttpLive } from "./EventsHttp.js"
