import { promises as fs } from "node:fs"
import * as path from "node:path"

/**
 * A file kept under the data directory's cache: read when present, else made, written atomically (temp
 * file, then rename, so a concurrent reader never sees half a file) and returned.
 */
export const cachedFile = async (dir: string, name: string, make: () => Promise<Uint8Array>): Promise<Uint8Array> => {
  const file = path.join(dir, name)
  try {
    return new Uint8Array(await fs.readFile(file))
  } catch {
    const bytes = await make()
    await fs.mkdir(dir, { recursive: true })
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`
    await fs.writeFile(temporary, bytes)
    await fs.rename(temporary, file)
    return bytes
  }
}
