/**
 * The import's worker thread (issue 26): reads an uploaded export (JSON, JSON lines or a zip of them), parses its
 * records and matches each listen against the library, so none of that CPU work runs on the HTTP event loop. The
 * main thread sends the catalogue, then either a file to read or listens to match (Last.fm pages); the worker
 * answers in batches, at most two ahead of what the main thread has committed (each is acknowledged once written),
 * so memory stays flat whatever the file's size. Runs at background priority, like the engine.
 */
import { execFileSync } from "node:child_process"
import { createReadStream, readlinkSync } from "node:fs"
import { open } from "node:fs/promises"
import { setPriority } from "node:os"
import { parentPort } from "node:worker_threads"
import {
  buildMatchIndex,
  type FileFormat,
  isListensEntry,
  JsonRecordSplitter,
  type Listen,
  MalformedJson,
  type MatchCandidate,
  type MatchIndex,
  matchListen,
  parseRecord,
} from "@tonearm/core"
import { collectGarbageWhenIdle } from "../idleGc.js"
import type { WorkerIn, WorkerItem, WorkerOut } from "./importProtocol.js"
import { checkInflatedSize, entryBytes, isZip, ZipError, zipEntries } from "./zip.js"

const port = parentPort
if (port === null) throw new Error("importWorker runs as a worker thread")

const send = (message: WorkerOut) => port.postMessage(message)

/** Nice 10 and, where there is one, the idle scheduling class, for this thread only (Linux keeps both per thread). */
const lowerPriority = () => {
  try {
    setPriority(0, 10)
    const tid = readlinkSync("/proc/thread-self").split("/").at(-1)
    if (tid !== undefined) execFileSync("chrt", ["--idle", "--pid", "0", tid], { stdio: "ignore" })
  } catch {
    // Not Linux, or refused: the thread keeps its priority.
  }
}
lowerPriority()

let candidates: Array<MatchCandidate> = []
let index: MatchIndex | null = null
const lengths = new Map<string, number>()
/** Batches sent and not yet written by the main thread; the worker reads on while one is being written. */
let unacknowledged = 0
let acknowledged: (() => void) | null = null
const BATCHES_AHEAD = 2
/**
 * Parsed records die young but a batch's survive until it is sent; V8 collects what got promoted only once this
 * isolate's heap has grown far (RSS climbed with the file's size). A full collection every this many batches
 * keeps it flat; the thread runs at background priority, so the pause costs the event loop nothing.
 */
const BATCHES_PER_COLLECTION = 50
let batchesSent = 0

const matcher = (): MatchIndex => {
  if (index === null) {
    index = buildMatchIndex(candidates)
    candidates = []
    // Building the index leaves the catalogue messages' garbage behind.
    collectGarbageWhenIdle()
  }
  return index
}

/** One listen → what the main thread writes: a matched play, or an unmatched entry. */
const itemOf = (position: number, listen: Listen): WorkerItem => {
  const own = listen.tonearm_track_id
  const ownLength = own === undefined || own === null ? undefined : lengths.get(own)
  const found =
    own !== undefined && own !== null && ownLength !== undefined
      ? { track_id: own }
      : matchListen(matcher(), {
          artist: listen.artist,
          title: listen.title,
          album: listen.album,
          recording_mbid: listen.recording_mbid,
        })
  if (found === null)
    return {
      position,
      status: "unmatched",
      started_at_ms: listen.started_at_ms,
      artist: listen.artist,
      title: listen.title,
      album: listen.album,
    }
  return {
    position,
    status: "matched",
    started_at_ms: listen.started_at_ms,
    track_id: found.track_id,
    track_duration_ms: lengths.get(found.track_id) ?? 0,
    ms_played: listen.ms_played,
  }
}

/** Reads the file from record `skip` on, sending batches of `batchSize` items and waiting for each to be written. */
const readFile = async (path: string, format: FileFormat, skip: number, batchSize: number) => {
  let position = 0
  let valid = 0
  let invalid = 0
  let batch: Array<WorkerItem> = []
  const flush = async () => {
    const items = batch
    batch = []
    send({ type: "batch", items, position })
    unacknowledged++
    if (++batchesSent % BATCHES_PER_COLLECTION === 0) collectGarbageWhenIdle()
    // Parse and match the next batch while this one is written; never more than BATCHES_AHEAD in memory.
    if (unacknowledged >= BATCHES_AHEAD)
      await new Promise<void>((resolve) => {
        acknowledged = resolve
      })
  }
  const handleRecord = async (text: string) => {
    const at = position++
    if (at < skip) return
    let record: unknown
    try {
      record = JSON.parse(text)
    } catch {
      invalid++
      return
    }
    const parsed = parseRecord(format, record)
    switch (parsed._tag) {
      case "invalid":
        invalid++
        return
      case "ignored":
        valid++
        return
      case "incomplete":
        valid++
        batch.push({
          position: at,
          status: "incomplete",
          started_at_ms: parsed.started_at_ms,
          artist: parsed.artist,
          title: parsed.title,
          album: parsed.album,
        })
        break
      case "listen":
        valid++
        batch.push(itemOf(at, parsed.listen))
        break
    }
    if (batch.length >= batchSize) await flush()
  }
  const readText = async (chunks: AsyncIterable<Uint8Array>) => {
    const splitter = new JsonRecordSplitter()
    const decoder = new TextDecoder("utf-8")
    for await (const chunk of chunks) {
      for (const record of splitter.feed(decoder.decode(chunk, { stream: true }))) await handleRecord(record)
    }
    for (const record of splitter.feed(decoder.decode())) await handleRecord(record)
    splitter.end()
  }

  const handle = await open(path, "r")
  try {
    if (await isZip(handle)) {
      const entries = (await zipEntries(handle))
        .filter((entry) => isListensEntry(format, entry.name))
        .sort((a, b) => a.name.localeCompare(b.name))
      if (entries.length === 0) throw new ZipError("the zip holds no listening history files")
      checkInflatedSize(entries)
      for (const entry of entries) await readText(entryBytes(path, handle, entry))
    } else {
      await readText(createReadStream(path, { highWaterMark: 256 * 1024 }))
    }
  } finally {
    await handle.close()
  }
  // Resumed past the records read before: those were checked then.
  if (valid === 0 && invalid > 0 && skip === 0)
    throw new MalformedJson(
      `no record of this file is a ${format === "spotify_extended" ? "Spotify" : "ListenBrainz"} listen`,
    )
  if (batch.length > 0) await flush()
  send({ type: "end", position, invalid })
}

port.on("message", (message: WorkerIn) => {
  switch (message.type) {
    case "catalog":
      for (const candidate of message.candidates) {
        candidates.push(candidate)
        lengths.set(candidate.track_id, candidate.duration_ms)
      }
      return
    case "ack": {
      unacknowledged--
      const resume = acknowledged
      acknowledged = null
      resume?.()
      return
    }
    case "match":
      send({
        type: "matched",
        id: message.id,
        items: message.listens.map((listen, i) => itemOf(message.firstPosition + i, listen)),
      })
      return
    case "file":
      readFile(message.path, message.format, message.skip, message.batchSize).catch((error: unknown) => {
        const known = error instanceof MalformedJson || error instanceof ZipError
        send({
          type: "error",
          message: known ? error.message : `could not read the file: ${String(error)}`,
          badFile: known || error instanceof SyntaxError,
        })
      })
      return
  }
})
