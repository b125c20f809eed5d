// A parse worker of the scanner's pool: reads one file's tags with music-metadata and answers a small,
// structured-cloneable summary. Plain JavaScript so Node can load it as a worker in every setting.
import { parentPort } from "node:worker_threads"
import { parseFile } from "music-metadata"

const first = (value) => (Array.isArray(value) ? value[0] : value)

const hasTags = ({ common }) => common.title !== undefined || common.artist !== undefined || common.album !== undefined

parentPort.on("message", async ({ id, path, aac }) => {
  try {
    // ADTS .aac has no duration unless the whole stream is read; pictures only tell whether one exists.
    // Tags at the end of a file (ID3v1, APE) are read only when the head had none: most files never need it.
    let metadata = await parseFile(path, { duration: aac, skipCovers: false, skipPostHeaders: true })
    if (!hasTags(metadata)) metadata = await parseFile(path, { duration: aac, skipCovers: false })
    const { common, format } = metadata
    parentPort.postMessage({
      id,
      ok: true,
      tags: {
        container: format.container ?? null,
        codec: format.codec ?? null,
        duration: format.duration ?? null,
        bitrate: format.bitrate ?? null,
        title: common.title ?? null,
        artist: common.artist ?? null,
        artists: common.artists ?? [],
        albumartist: common.albumartist ?? null,
        album: common.album ?? null,
        track: common.track?.no ?? null,
        disk: common.disk?.no ?? null,
        year: common.year ?? null,
        date: common.date ?? common.originaldate ?? null,
        genre: common.genre ?? [],
        compilation: common.compilation === true,
        trackMbid: first(common.musicbrainz_recordingid) ?? first(common.musicbrainz_trackid) ?? null,
        albumMbid: first(common.musicbrainz_albumid) ?? null,
        artistMbid: first(common.musicbrainz_artistid) ?? null,
        albumArtistMbid: first(common.musicbrainz_albumartistid) ?? null,
        hasPicture: Array.isArray(common.picture) && common.picture.length > 0,
      },
    })
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: error instanceof Error ? error.message : String(error) })
  }
})
