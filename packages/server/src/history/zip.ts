/**
 * A small zip reader for uploaded exports (a Spotify or ListenBrainz zip): the central directory is read from the
 * end of the file, then each wanted entry is inflated as a stream (node:zlib), so no entry is ever held whole.
 * Safe against zip bombs: an entry that inflates past its declared size, or entries declaring more than
 * MAX_INFLATED_BYTES in all, stop the import. No zip64, no encryption: exports are neither.
 */
import { createReadStream } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import { createInflateRaw } from "node:zlib"

/** The most a zip's listens may inflate to in all (a decade of Spotify history is well under 1 GiB). */
export const MAX_INFLATED_BYTES = 8 * 1024 ** 3

export class ZipError extends Error {
  override readonly name = "ZipError"
}

export interface ZipEntry {
  readonly name: string
  readonly method: number
  readonly compressedSize: number
  readonly uncompressedSize: number
  readonly localHeaderOffset: number
}

const ZIP_MAGIC = 0x04034b50
const EOCD = 0x06054b50
const CENTRAL = 0x02014b50

/** True when the file starts like a zip (a local file header). */
export const isZip = async (handle: FileHandle): Promise<boolean> => {
  const head = Buffer.alloc(4)
  const { bytesRead } = await handle.read(head, 0, 4, 0)
  return bytesRead === 4 && head.readUInt32LE(0) === ZIP_MAGIC
}

const readAt = async (handle: FileHandle, position: number, length: number): Promise<Buffer> => {
  const buffer = Buffer.alloc(length)
  let done = 0
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done)
    if (bytesRead === 0) throw new ZipError("the zip is cut short")
    done += bytesRead
  }
  return buffer
}

/** The zip's entries, in directory order. */
export const zipEntries = async (handle: FileHandle): Promise<Array<ZipEntry>> => {
  const { size } = await handle.stat()
  const tailLength = Math.min(size, 22 + 0xffff)
  const tail = await readAt(handle, size - tailLength, tailLength)
  let at = -1
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      at = i
      break
    }
  }
  if (at === -1) throw new ZipError("not a zip (no central directory)")
  const count = tail.readUInt16LE(at + 10)
  const directorySize = tail.readUInt32LE(at + 12)
  const directoryOffset = tail.readUInt32LE(at + 16)
  if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff)
    throw new ZipError("zip64 archives are not supported")
  if (directoryOffset + directorySize > size) throw new ZipError("the zip's directory lies outside the file")
  const directory = await readAt(handle, directoryOffset, directorySize)
  const entries: Array<ZipEntry> = []
  let offset = 0
  for (let n = 0; n < count; n++) {
    if (offset + 46 > directory.length || directory.readUInt32LE(offset) !== CENTRAL)
      throw new ZipError("the zip's directory is damaged")
    const flags = directory.readUInt16LE(offset + 8)
    const method = directory.readUInt16LE(offset + 10)
    const compressedSize = directory.readUInt32LE(offset + 20)
    const uncompressedSize = directory.readUInt32LE(offset + 24)
    const nameLength = directory.readUInt16LE(offset + 28)
    const extraLength = directory.readUInt16LE(offset + 30)
    const commentLength = directory.readUInt16LE(offset + 32)
    const localHeaderOffset = directory.readUInt32LE(offset + 42)
    const name = directory.toString("utf8", offset + 46, offset + 46 + nameLength)
    if ((flags & 1) !== 0) throw new ZipError(`${name} is encrypted`)
    if (!name.endsWith("/")) entries.push({ name, method, compressedSize, uncompressedSize, localHeaderOffset })
    offset += 46 + nameLength + extraLength + commentLength
  }
  return entries
}

/** Checks the entries' declared sizes before any is inflated. */
export const checkInflatedSize = (entries: ReadonlyArray<ZipEntry>): void => {
  const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0)
  if (declared > MAX_INFLATED_BYTES) throw new ZipError(`the zip's listens would inflate to ${declared} bytes`)
}

/** One entry's bytes, inflated as they are read; fails when it inflates past its declared size. */
export async function* entryBytes(path: string, handle: FileHandle, entry: ZipEntry): AsyncGenerator<Uint8Array> {
  if (entry.method !== 0 && entry.method !== 8)
    throw new ZipError(`${entry.name} uses compression method ${entry.method}`)
  const local = await readAt(handle, entry.localHeaderOffset, 30)
  if (local.readUInt32LE(0) !== ZIP_MAGIC) throw new ZipError(`${entry.name}: damaged entry header`)
  const start = entry.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28)
  if (entry.compressedSize === 0) return
  const raw = createReadStream(path, { start, end: start + entry.compressedSize - 1, highWaterMark: 256 * 1024 })
  const source = entry.method === 8 ? raw.pipe(createInflateRaw()) : raw
  let inflated = 0
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      inflated += chunk.length
      if (inflated > entry.uncompressedSize)
        throw new ZipError(`${entry.name} inflates past its declared ${entry.uncompressedSize} bytes`)
      yield chunk
    }
  } finally {
    raw.destroy()
    if (source !== raw) source.destroy()
  }
}
