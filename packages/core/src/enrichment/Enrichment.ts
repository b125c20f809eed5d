import { Schema } from "effect"
import { EXTERNAL_COVER_PROVIDERS, LOCAL_COVER_PROVIDERS } from "../library/Library.js"

/**
 * The provider registry (spec "What the service does" 7, "Library": art sources): every provider Tonearm
 * knows, what it can do, and whether an admin configures it. Art source identifiers stored on albums and
 * artists are free-form strings checked against this list.
 */
export const PROVIDER_CAPABILITIES = ["tags", "covers", "artist_images", "similar_artists"] as const
export type ProviderCapability = (typeof PROVIDER_CAPABILITIES)[number]

export interface ProviderEntry {
  readonly id: string
  readonly capabilities: ReadonlyArray<ProviderCapability>
  /** Reads the library's own files (sidecar, embedded): always on, nothing to configure. */
  readonly local: boolean
  /** Answers nothing without an API key. */
  readonly requiresApiKey: boolean
  /** Has a cheap request that proves the base URL (and key) work. */
  readonly testable: boolean
}

export const PROVIDERS: ReadonlyArray<ProviderEntry> = [
  { id: "musicbrainz", capabilities: ["tags"], local: false, requiresApiKey: false, testable: true },
  {
    id: "lastfm",
    capabilities: ["tags", "covers", "similar_artists"],
    local: false,
    requiresApiKey: true,
    testable: true,
  },
  {
    id: "listenbrainz",
    capabilities: ["tags", "similar_artists"],
    local: false,
    requiresApiKey: false,
    testable: true,
  },
  { id: "coverartarchive", capabilities: ["covers"], local: false, requiresApiKey: false, testable: false },
  { id: "sidecar", capabilities: ["covers"], local: true, requiresApiKey: false, testable: false },
  { id: "embedded", capabilities: ["covers"], local: true, requiresApiKey: false, testable: false },
]

/** Providers an admin switches on and off (GET /api/admin/tag-sources): the external ones. */
export const EXTERNAL_PROVIDER_IDS = ["musicbrainz", "lastfm", "listenbrainz", "coverartarchive"] as const
export type ExternalProviderId = (typeof EXTERNAL_PROVIDER_IDS)[number]

export const providerEntry = (id: string): ProviderEntry | undefined => PROVIDERS.find((entry) => entry.id === id)

/** A cover or art source is valid when the registry knows it as a cover provider. */
export const isValidArtSource = (source: string | null | undefined): source is string =>
  source !== null &&
  source !== undefined &&
  source !== "" &&
  (providerEntry(source)?.capabilities.includes("covers") ?? false)

// The library's constants and the registry agree (a cover provider listed in one is listed in the other).
export const COVER_PROVIDER_IDS: ReadonlyArray<string> = [...LOCAL_COVER_PROVIDERS, ...EXTERNAL_COVER_PROVIDERS]

/** A tag source row (spec "Tag source": id, enabled, api_key, version — version is the global counter). */
export class TagSource extends Schema.Class<TagSource>("TagSource")({
  id: Schema.String,
  enabled: Schema.Boolean,
  api_key: Schema.NullOr(Schema.String),
  version: Schema.Int,
  capabilities: Schema.Array(Schema.String),
  requires_api_key: Schema.Boolean,
  testable: Schema.Boolean,
  /** How far this provider's enrichment runs are: rows waiting, answered, given up on. */
  runs: Schema.Struct({ pending: Schema.Int, settled: Schema.Int, failed: Schema.Int }),
}) {}

export class TagSources extends Schema.Class<TagSources>("TagSources")({
  version: Schema.Int,
  providers: Schema.Array(TagSource),
}) {}

/** PATCH /api/admin/tag-sources/{id}: an empty string clears the key. */
export const TagSourcePatch = Schema.Struct({
  enabled: Schema.optional(Schema.Boolean),
  api_key: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(500)))),
})
export type TagSourcePatch = typeof TagSourcePatch.Type

export class ConnectionTest extends Schema.Class<ConnectionTest>("ConnectionTest")({
  ok: Schema.Boolean,
  message: Schema.String,
}) {}

export class ResearchStarted extends Schema.Class<ResearchStarted>("ResearchStarted")({
  version: Schema.Int,
  reopened: Schema.Int,
}) {}

export class RefetchStarted extends Schema.Class<RefetchStarted>("RefetchStarted")({ started: Schema.Boolean }) {}

/** An enriched folksonomy tag, its weight in (0, 1] (the provider's count scaled to its top tag). */
export interface WeightedTag {
  readonly name: string
  readonly weight: number
}

/** Tags that carry no taste (a provider's bookkeeping, not a listener's word). */
const NOISE = new Set([
  "seen live",
  "favorites",
  "favourite",
  "favorite",
  "albums i own",
  "spotify",
  "under 2000 listeners",
])

/**
 * A provider's raw tag counts as weighted tags: trimmed, empty and noise tags dropped, one entry per
 * spelling (case-insensitively, the first spelling kept), scaled so the strongest is 1, weakest dropped
 * below `minWeight`, at most `limit`, strongest first.
 */
export const weightTags = (
  raw: ReadonlyArray<{ readonly name: string; readonly count: number }>,
  limit = 20,
  minWeight = 0.05,
): ReadonlyArray<WeightedTag> => {
  const byKey = new Map<string, { name: string; count: number }>()
  for (const tag of raw) {
    const name = tag.name.trim()
    const key = name.toLowerCase()
    if (name === "" || NOISE.has(key) || !Number.isFinite(tag.count) || tag.count <= 0) continue
    const known = byKey.get(key)
    if (known === undefined) byKey.set(key, { name, count: tag.count })
    else known.count = Math.max(known.count, tag.count)
  }
  const top = Math.max(0, ...[...byKey.values()].map((tag) => tag.count))
  if (top <= 0) return []
  return [...byKey.values()]
    .map((tag) => ({ name: tag.name, weight: tag.count / top }))
    .filter((tag) => tag.weight >= minWeight)
    .sort((a, b) => b.weight - a.weight || (a.name < b.name ? -1 : 1))
    .slice(0, limit)
}

/**
 * Tags of one entity from several providers (and an artist's tags under its album's) as one list: the same
 * tag (case-insensitively) keeps its strongest weight, strongest first.
 */
export const mergeTags = (lists: ReadonlyArray<ReadonlyArray<WeightedTag>>, limit = 30): ReadonlyArray<WeightedTag> => {
  const byKey = new Map<string, WeightedTag>()
  for (const list of lists)
    for (const tag of list) {
      const key = tag.name.toLowerCase()
      const known = byKey.get(key)
      if (known === undefined || tag.weight > known.weight)
        byKey.set(key, { name: known?.name ?? tag.name, weight: tag.weight })
    }
  return [...byKey.values()].sort((a, b) => b.weight - a.weight || (a.name < b.name ? -1 : 1)).slice(0, limit)
}

/** One stored enriched tag: of an album (`album_id` set) or of an artist (`album_id` null). */
export interface EntityTagRow {
  readonly album_id: string | null
  readonly artist_id: string | null
  readonly tag: string
  readonly weight: number
}

/**
 * The tags a track carries for the recommendation engine: its album's merged with its artist's (`mergeTags`),
 * one list per artist and album pair, computed once per pair. Answers the lookup.
 */
export const trackTagsOf = (
  rows: ReadonlyArray<EntityTagRow>,
): ((artistId: string, albumId: string) => ReadonlyArray<WeightedTag>) => {
  const byArtist = new Map<string, Array<WeightedTag>>()
  const byAlbum = new Map<string, Array<WeightedTag>>()
  for (const row of rows) {
    const target = row.album_id !== null ? byAlbum : byArtist
    const key = row.album_id ?? row.artist_id
    if (key === null) continue
    const list = target.get(key) ?? []
    list.push({ name: row.tag, weight: row.weight })
    target.set(key, list)
  }
  const merged = new Map<string, ReadonlyArray<WeightedTag>>()
  return (artistId, albumId) => {
    const key = `${artistId}|${albumId}`
    let tags = merged.get(key)
    if (tags === undefined) {
      tags = mergeTags([byArtist.get(artistId) ?? [], byAlbum.get(albumId) ?? []])
      merged.set(key, tags)
    }
    return tags
  }
}

/**
 * Retry with backoff (Done means: 503 or garbage is retried, then marked failed, never looped on): the
 * delay before attempt `attempts + 1` doubles from `baseMs`, capped at `maxMs`; once `attempts` reaches
 * `maxAttempts` the row is failed instead.
 */
export const retryDecision = (
  attempts: number,
  policy: { readonly baseMs: number; readonly maxMs: number; readonly maxAttempts: number },
): { readonly _tag: "Retry"; readonly delayMs: number } | { readonly _tag: "Fail" } =>
  attempts >= policy.maxAttempts
    ? { _tag: "Fail" }
    : { _tag: "Retry", delayMs: Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempts - 1)) }

/**
 * The per-provider request throttle: the next request may start at the later of now and the previous
 * start plus the interval. Returns when it starts (and so the new "previous start").
 */
export const nextRequestSlot = (previousStartMs: number | undefined, intervalMs: number, nowMs: number): number =>
  previousStartMs === undefined ? nowMs : Math.max(nowMs, previousStartMs + intervalMs)
