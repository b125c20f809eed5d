import type { SubsonicMethod } from "../method.js"
import { annotationMethods } from "./annotation.js"
import { bookmarkMethods } from "./bookmarks.js"
import { browsingMethods } from "./browsing.js"
import { listMethods } from "./lists.js"
import { mediaMethods } from "./media.js"
import { playlistMethods } from "./playlists.js"
import { searchMethods } from "./search.js"
import { systemMethods } from "./system.js"
import { userMethods } from "./users.js"

export { OPEN_SUBSONIC_EXTENSIONS } from "./system.js"

/** Every Subsonic method, by area (the areas of the protocol's documentation). */
export const SUBSONIC_METHODS: ReadonlyArray<SubsonicMethod> = [
  ...systemMethods,
  ...browsingMethods,
  ...listMethods,
  ...searchMethods,
  ...playlistMethods,
  ...annotationMethods,
  ...bookmarkMethods,
  ...mediaMethods,
  ...userMethods,
]

/** The methods by name; a name registered twice is a bug, refused when the table is built. */
export const methodTable = (methods: ReadonlyArray<SubsonicMethod>): ReadonlyMap<string, SubsonicMethod> => {
  const table = new Map<string, SubsonicMethod>()
  for (const method of methods) {
    if (table.has(method.name)) throw new Error(`Subsonic method ${method.name} is registered twice`)
    table.set(method.name, method)
  }
  return table
}
