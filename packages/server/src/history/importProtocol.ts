/** Messages between the import service and its worker thread (importWorker.ts). */
import type { FileFormat, Listen, MatchCandidate } from "@tonearm/core"

/** One entry of an export, as the worker leaves it for the main thread to write. */
export type WorkerItem =
  | {
      readonly position: number
      readonly status: "matched"
      readonly started_at_ms: number
      readonly track_id: string
      readonly track_duration_ms: number
      readonly ms_played: number | null
    }
  | {
      readonly position: number
      readonly status: "unmatched" | "incomplete"
      readonly started_at_ms: number
      readonly artist: string
      readonly title: string
      readonly album: string | null
    }

export type WorkerIn =
  | { readonly type: "catalog"; readonly candidates: ReadonlyArray<MatchCandidate> }
  | {
      readonly type: "file"
      readonly path: string
      readonly format: FileFormat
      readonly skip: number
      readonly batchSize: number
    }
  | { readonly type: "ack" }
  | {
      readonly type: "match"
      readonly id: number
      readonly firstPosition: number
      readonly listens: ReadonlyArray<Listen>
    }

export type WorkerOut =
  | { readonly type: "batch"; readonly items: ReadonlyArray<WorkerItem>; readonly position: number }
  | { readonly type: "end"; readonly position: number; readonly invalid: number }
  | { readonly type: "matched"; readonly id: number; readonly items: ReadonlyArray<WorkerItem> }
  | { readonly type: "error"; readonly message: string; readonly badFile: boolean }
