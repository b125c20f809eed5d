// A parse worker of the scanner's pool: reads one file's tags with music-metadata and answers a small,
// structured-cloneable summary. Plain JavaScript so Node can load it as a worker in every setting.
import { open } from "node:fs/promises"
import { parentPort } from "node:worker_threads"
import { parseFromTokenizer } from "music-metadata"
import { AbstractTokenizer, EndOfStreamError } from "strtok3"

// music-metadata reads a file token by token, a few bytes at a time; straight from the file that is one
// thread-pool round trip per token, dozens per file. Reads go through a small block cache instead: a file's
// tags usually sit in its first block, so most files cost one or two real reads.
const BLOCK_BYTES = 64 * 1024
const BLOCKS_PER_FILE = 8
// Larger reads (an embedded picture, say) go straight to the file and skip the cache.
const DIRECT_READ_BYTES = 2 * BLOCK_BYTES

/** One open file, read in cached blocks. */
class FileBlocks {
  constructor(handle, size) {
    this.handle = handle
    this.size = size
    this.blocks = new Map()
  }

  /** Reads up to `length` bytes at `position` into `target` from the file itself; stops at its end. */
  async readDirect(target, length, position) {
    let done = 0
    while (done < length) {
      const { bytesRead } = await this.handle.read(target, done, length - done, position + done)
      if (bytesRead === 0) break
      done += bytesRead
    }
    return done
  }

  block(index) {
    let block = this.blocks.get(index)
    if (block === undefined) {
      const start = index * BLOCK_BYTES
      const bytes = new Uint8Array(Math.max(0, Math.min(BLOCK_BYTES, this.size - start)))
      block = this.readDirect(bytes, bytes.length, start).then((read) => bytes.subarray(0, read))
      this.blocks.set(index, block)
      if (this.blocks.size > BLOCKS_PER_FILE) this.blocks.delete(this.blocks.keys().next().value)
    }
    return block
  }

  /** Copies up to `length` bytes at `position` into `target`; answers how many (fewer only at the end). */
  async read(target, length, position) {
    const end = Math.min(position + length, this.size)
    if (end <= position) return 0
    if (end - position > DIRECT_READ_BYTES) return this.readDirect(target, end - position, position)
    let done = 0
    while (position + done < end) {
      const at = position + done
      const index = Math.floor(at / BLOCK_BYTES)
      const block = await this.block(index)
      const from = at - index * BLOCK_BYTES
      const count = Math.min(block.length - from, end - at)
      if (count <= 0) break // the file is shorter than when it was opened
      target.set(block.subarray(from, from + count), done)
      done += count
    }
    return done
  }
}

/** A random-access tokenizer over a FileBlocks; several can share one (a second pass over the same file). */
class CachedFileTokenizer extends AbstractTokenizer {
  constructor(blocks, path) {
    super()
    this.blocks = blocks
    this.fileInfo = { path, size: blocks.size }
  }

  supportsRandomAccess() {
    return true
  }

  setPosition(position) {
    this.validateLength(position, "position")
    this.position = position
  }

  async peekBuffer(target, options) {
    const { length, position, mayBeLess } = this.normalizeOptions(target, options)
    const read = await this.blocks.read(target, length, position)
    if (!mayBeLess && read < length) throw new EndOfStreamError()
    return read
  }

  async readBuffer(target, options) {
    const { length, position, mayBeLess } = this.normalizeOptions(target, options)
    const read = await this.blocks.read(target, length, position)
    this.position = position + read
    if (!mayBeLess && read < length) throw new EndOfStreamError()
    return read
  }
}

const first = (value) => (Array.isArray(value) ? value[0] : value)

const hasTags = ({ common }) => common.title !== undefined || common.artist !== undefined || common.album !== undefined

// Formats whose header never carries the length: music-metadata finds it only when asked for the duration,
// by reading the stream to its end (ADTS .aac frame by frame; Ogg Vorbis/Opus from the last page's granule
// position, where a parse that is not asked stops after the first pages of a longer file).
const DURATION_BY_READING = [".aac", ".ogg", ".oga", ".opus"]

const needsDurationScan = (path) => {
  const lower = path.toLowerCase()
  return DURATION_BY_READING.some((extension) => lower.endsWith(extension))
}

const readTags = async (path) => {
  const handle = await open(path, "r")
  try {
    const blocks = new FileBlocks(handle, (await handle.stat()).size)
    const duration = needsDurationScan(path)
    // Pictures only tell whether one exists. Tags at the end of a file (ID3v1, APE) are read only when the
    // head had none: most files never need it.
    let metadata = await parseFromTokenizer(new CachedFileTokenizer(blocks, path), {
      duration,
      skipCovers: false,
      skipPostHeaders: true,
    })
    if (!hasTags(metadata)) {
      metadata = await parseFromTokenizer(new CachedFileTokenizer(blocks, path), { duration, skipCovers: false })
    }
    // Any other file whose header has no length (an MP3 without a Xing/VBRI frame, say): read it through once.
    if (!duration && metadata.format.duration === undefined && metadata.format.container !== undefined) {
      const scanned = await parseFromTokenizer(new CachedFileTokenizer(blocks, path), {
        duration: true,
        skipCovers: true,
        skipPostHeaders: true,
      })
      if (scanned.format.duration !== undefined) {
        metadata.format.duration = scanned.format.duration
        metadata.format.bitrate ??= scanned.format.bitrate
      }
    }
    return metadata
  } finally {
    await handle.close()
  }
}

/** The summary sent back for one file: small and structured-cloneable. */
const summaryOf = ({ common, format }) => ({
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
})

// Files parsed at once by this worker, whatever the number of jobs queued: enough to overlap one file's
// reads with another's parsing, few enough to keep the worker's memory small.
const FILES_AT_ONCE = 8
let running = 0
const waiting = []
const withSlot = async (task) => {
  if (running >= FILES_AT_ONCE) await new Promise((resolve) => waiting.push(resolve))
  running++
  try {
    return await task()
  } finally {
    running--
    waiting.shift()?.()
  }
}

const parseOne = (path) =>
  withSlot(async () => {
    try {
      return { ok: true, tags: summaryOf(await readTags(path)) }
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) }
    }
  })

// A job is a run of files (often one folder's); its answer comes back in one message, in the same order.
parentPort.on("message", async ({ id, paths }) => {
  parentPort.postMessage({ id, results: await Promise.all(paths.map(parseOne)) })
})
