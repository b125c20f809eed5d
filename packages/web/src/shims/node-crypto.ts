/**
 * @tonearm/core's stream-token and Subsonic helpers import node:crypto; the browser never calls them and the
 * bundler drops them, but the import must resolve. Anything reaching here at run time is a bug: it says so.
 */
const unavailable = (name: string) => () => {
  throw new Error(`node:crypto ${name} is not available in the browser`)
}
export const createHash = unavailable("createHash")
export const createHmac = unavailable("createHmac")
export const timingSafeEqual = unavailable("timingSafeEqual")
