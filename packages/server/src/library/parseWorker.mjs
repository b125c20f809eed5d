// A parse worker of the scanner's pool: reads one file's tags with music-metadata and answers a small,
// structured-cloneable summary. Plain JavaScript so Node can load it as a worker in every setting.
import { closeSync, fstatSync, openSync, readSync } from "node:fs"
import { parentPort } from "node:worker_threads"
import { parseFromTokenizer } from "music-metadata"
import { AbstractTokenizer, EndOfStreamError } from "strtok3"

// music-metadata reads a file token by token, a few bytes at a time. Reads go through a small block cache: a
// file's tags usually sit in its first block, so most files cost one or two real reads. The reads are
// synchronous: this thread only parses, and a read from the page cache costs less than the thread-pool round
// trip and promise of an asynchronous one (a 20k scan's workers spent ~1/3 of their time in open/stat/close).
const BLOCK_BYTES = 64 * 1024
const BLOCKS_PER_FILE = 8
// Larger reads (an embedded picture, say) go straight to the file and skip the cache.
const DIRECT_READ_BYTES = 2 * BLOCK_BYTES

/** One open file, read in cached blocks. */
class FileBlocks {
  constructor(fd, size) {
    this.fd = fd
    this.size = size
    this.blocks = new Map()
  }

  /** Reads up to `length` bytes at `position` into `target` from the file itself; stops at its end. */
  async readDirect(target, length, position) {
    let done = 0
    while (done < length) {
      const bytesRead = readSync(this.fd, target, done, length - done, position + done)
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
  const fd = openSync(path, "r")
  try {
    const blocks = new FileBlocks(fd, fstatSync(fd).size)
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
    closeSync(fd)
  }
}

// Native tag ids per format, folded to one name each (Vorbis comments are already named so).
const NATIVE_NAMES = {
  TPE1: "ARTIST",
  TP1: "ARTIST",
  TPE2: "ALBUMARTIST",
  TP2: "ALBUMARTIST",
  TSOP: "ARTISTSORT",
  TSO2: "ALBUMARTISTSORT",
  TSOA: "ALBUMSORT",
  TSOT: "TITLESORT",
  TSST: "DISCSUBTITLE",
  "©ART": "ARTIST",
  aART: "ALBUMARTIST",
  soar: "ARTISTSORT",
  soaa: "ALBUMARTISTSORT",
  soal: "ALBUMSORT",
  sonm: "TITLESORT",
  "ALBUM ARTIST": "ALBUMARTIST",
  "WM/ALBUMARTIST": "ALBUMARTIST",
  AUTHOR: "ARTIST",
}

// The names the catalogue reads beyond music-metadata's common fields (credits, sort, discs, editions, gain).
const WANTED = new Set([
  "ARTIST",
  "ARTISTS",
  "ALBUMARTIST",
  "ALBUMARTISTS",
  "ARTISTSORT",
  "ALBUMARTISTSORT",
  "ALBUMSORT",
  "TITLESORT",
  "DISCSUBTITLE",
  "MUSICBRAINZ_ALBUMCOMMENT",
  "REPLAYGAIN_TRACK_GAIN",
  "REPLAYGAIN_TRACK_PEAK",
  "REPLAYGAIN_ALBUM_GAIN",
  "REPLAYGAIN_ALBUM_PEAK",
  "R128_TRACK_GAIN",
  "R128_ALBUM_GAIN",
])

const nativeName = (id) => {
  const bare = id.replace(/^TXXX:/, "").replace(/^----:com\.apple\.iTunes:/, "")
  const named = NATIVE_NAMES[bare] ?? NATIVE_NAMES[bare.toUpperCase()] ?? bare.toUpperCase()
  return named === "MUSICBRAINZ ALBUM COMMENT" ? "MUSICBRAINZ_ALBUMCOMMENT" : named
}

// ID3v2.3 and 2.2 have no multi-value separator: music-metadata splits their artist frame on "/" (the old
// standard's performer separator) unless it holds NUL-separated values, which would make `AC/DC` two artists.
// The contract reads the text as tagged (its own separators have spaces: `A / B`), so that split is undone.
const SLASH_SPLIT_FRAMES = new Set(["TPE1", "TP1"])
const slashSplit = (format, id, warnings) =>
  (format === "ID3v2.3" || format === "ID3v2.2") &&
  SLASH_SPLIT_FRAMES.has(id) &&
  !warnings.some((warning) => warning.message === `${format} ${id} uses non standard null-separator.`)

/**
 * The wanted native tags as name → values, each name from one tag format only (ID3v1 last: it truncates names
 * to 30 characters), so a file tagged twice does not credit an artist twice.
 */
const nativeOf = (native, warnings) => {
  const out = {}
  const formats = Object.keys(native ?? {}).sort((a, b) => (a === "ID3v1") - (b === "ID3v1"))
  for (const format of formats) {
    const found = {}
    const slashed = {}
    for (const { id, value } of native[format]) {
      const name = nativeName(String(id))
      if (!WANTED.has(name) || name in out) continue
      const text = typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined
      if (text === undefined) continue
      const into = slashSplit(format, String(id), warnings) ? slashed : found
      if (into[name] === undefined) into[name] = [text]
      else into[name].push(text)
    }
    for (const [name, parts] of Object.entries(slashed)) found[name] = [...(found[name] ?? []), parts.join("/")]
    Object.assign(out, found)
  }
  return out
}

/** The summary sent back for one file: small and structured-cloneable. */
const summaryOf = ({ common, format, native, quality }) => ({
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
  native: nativeOf(native, quality?.warnings ?? []),
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

// ---- lyrics (the lyrics route reads them on demand, off the HTTP event loop) ------------------------------

/** One file's tags for its lyrics: covers skipped, tags at the end (APE) read too, no duration scan. */
const readLyricsTags = async (path) => {
  const fd = openSync(path, "r")
  try {
    const blocks = new FileBlocks(fd, fstatSync(fd).size)
    return await parseFromTokenizer(new CachedFileTokenizer(blocks, path), { duration: false, skipCovers: true })
  } finally {
    closeSync(fd)
  }
}

// Tags that hold lyrics as text, by upper-cased native id: Vorbis/FLAC and APE comments, MP4, ASF, and ID3
// TXXX frames (ffmpeg writes its `lyrics` key as TXXX:USLT).
const LYRICS_TEXT_IDS = new Set([
  "LYRICS",
  "UNSYNCEDLYRICS",
  "UNSYNCED LYRICS",
  "©LYR",
  "WM/LYRICS",
  "TXXX:LYRICS",
  "TXXX:UNSYNCEDLYRICS",
  "TXXX:UNSYNCED LYRICS",
  "TXXX:USLT",
])

// ID3 SYLT timestamp format 2: milliseconds (1 is MPEG frames).
const SYLT_MILLISECONDS = 2

/** Every lyrics tag of the file in tag order, as @tonearm/core's EmbeddedLyricsTag (the rules live there). */
const lyricsOf = ({ native }) => {
  const found = []
  for (const tags of Object.values(native ?? {})) {
    for (const { id, value } of tags) {
      const key = String(id).toUpperCase()
      if ((key === "SYLT" || key === "SLT") && Array.isArray(value?.syncText)) {
        found.push({
          kind: "sylt",
          lang: typeof value.language === "string" ? value.language : null,
          contentType: typeof value.contentType === "number" ? value.contentType : 1,
          millis: value.timeStampFormat === SYLT_MILLISECONDS,
          entries: value.syncText.map((entry) => ({
            ms: Number(entry.timestamp ?? 0),
            text: String(entry.text ?? ""),
          })),
        })
      } else if ((key === "USLT" || key === "ULT") && typeof value?.text === "string") {
        found.push({ kind: "text", lang: typeof value.language === "string" ? value.language : null, text: value.text })
      } else if (LYRICS_TEXT_IDS.has(key)) {
        const text = typeof value === "string" ? value : value?.text
        if (typeof text === "string") found.push({ kind: "text", lang: null, text })
      }
    }
  }
  return found
}

const lyricsOne = (path) =>
  withSlot(async () => {
    try {
      return { ok: true, tags: lyricsOf(await readLyricsTags(path)) }
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) }
    }
  })

// A job is a run of files (often one folder's); its answer comes back in one message, in the same order.
// A `lyrics` message asks for one file's lyrics tags.
parentPort.on("message", async (message) => {
  if (message.kind === "lyrics") {
    parentPort.postMessage({ id: message.id, lyrics: await lyricsOne(message.path) })
    return
  }
  const { id, paths } = message
  parentPort.postMessage({ id, results: await Promise.all(paths.map(parseOne)) })
})
