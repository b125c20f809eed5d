import type {
  CoListenRow,
  LibraryTrack,
  RadioOptions,
  RadioSeed,
  SimilarArtistsQuery,
  TasteProfile,
} from "@tonearm/recommend"
import type { CatalogText } from "../library/catalogColumns.js"
import type { SimilarityModelRef } from "./learnedSimilarityCache.js"
import type { EngineInput } from "./RecommendationEngine.js"

/**
 * A per-track signal map (popularity, other users' plays) as sent to a worker: the full map, or the changes
 * against the one this worker received last. From one user to the next these maps differ in a few hundred
 * tracks out of ~100k, so a patch saves cloning the whole map twice per rebuild.
 */
export type SignalPatch =
  | { readonly kind: "none" }
  | { readonly kind: "full"; readonly map: ReadonlyMap<string, number> }
  | {
      readonly kind: "patch"
      readonly set: ReadonlyArray<readonly [string, number]>
      readonly removed: ReadonlyArray<string>
    }

/** Set in the engine process's environment: the module then serves jobs from its parent. */
export const ENGINE_PROCESS_ENV = "TONEARM_ENGINE_PROCESS"

/** The per-track maps of `EngineSignals` that travel as patches. */
export const PATCHED_SIGNALS = ["crossUser", "popularity"] as const
export type PatchedSignals = Record<(typeof PATCHED_SIGNALS)[number], SignalPatch>

/**
 * The server-wide play counts a job's signals derive from (`EngineSignals.sharedPlays`): the counts travel
 * once per version and worker; later jobs name the version only.
 */
export interface SharedPlaysRef {
  readonly version: string
  readonly sinceMs: number
  readonly counts?: ReadonlyMap<string, number> | undefined
}

/** What every engine run carries: the catalog version it expects, its clock and seed, one user's signals. */
interface EngineRun {
  readonly id: number
  readonly version: string
  readonly now: number
  readonly randomSeed: number
  readonly input: EngineInput
  readonly patched: PatchedSignals
  readonly shared: SharedPlaysRef | undefined
}

/** What the main thread sends an engine process (V8-serialisable: plain data, Maps, Sets and buffers). */
export type WorkerJob =
  | { readonly type: "catalog"; readonly version: string; readonly tracks: ReadonlyArray<LibraryTrack> | CatalogText }
  | (EngineRun & { readonly type: "rebuild" })
  | (EngineRun & {
      readonly type: "radio"
      readonly profile: TasteProfile
      readonly seed: RadioSeed
      readonly options: RadioOptions
    })
  | {
      readonly type: "similar"
      readonly id: number
      readonly version: string
      readonly now: number
      readonly randomSeed: number
      readonly query: SimilarArtistsQuery
      /** the learned similarity to use: its key, and the fit itself the first time this process reads it */
      readonly model: SimilarityModelRef | undefined
    }
  | {
      readonly type: "fitSimilarity"
      readonly id: number
      readonly version: string
      readonly now: number
      readonly randomSeed: number
      /** the key the server names this fit by (the process keeps the fit under it) */
      readonly key: string
      readonly coListens: ReadonlyArray<CoListenRow>
    }

/** A worker's answer to one job. */
export type WorkerReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | {
      readonly id: number
      readonly ok: false
      readonly error:
        | { readonly tag: "RadioSeedNotFound"; readonly seed: unknown }
        | { readonly tag: "Defect"; readonly message: string }
    }
