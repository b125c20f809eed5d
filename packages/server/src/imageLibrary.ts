import type Sharp from "sharp"

let loading: Promise<typeof Sharp> | undefined

/**
 * sharp (libvips), loaded with the first image the server makes: loading it costs ~30 MB resident (its native
 * libraries and thread pool), which a server that has not resized a cover since it started does not need.
 */
export const imageLibrary = (): Promise<typeof Sharp> => (loading ??= import("sharp").then((module) => module.default))
