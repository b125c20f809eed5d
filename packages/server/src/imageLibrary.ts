import type Sharp from "sharp"

let loading: Promise<typeof Sharp> | undefined

/**
 * sharp (libvips), loaded with the first image the server makes: loading it costs ~30 MB resident (its native
 * libraries and thread pool), which a server that has not resized a cover since it started does not need.
 * libvips' operation cache is turned off: every resized copy is kept on disk (CoverService, PlaylistCover), so the
 * same operation never runs twice; the cache only kept its last 100 operations and their input buffers resident
 * (40 distinct 1500 px covers resized to 300: RSS +2.7 MB with it, +1.0 MB without).
 */
export const imageLibrary = (): Promise<typeof Sharp> =>
  (loading ??= import("sharp").then((module) => {
    module.default.cache(false)
    return module.default
  }))
