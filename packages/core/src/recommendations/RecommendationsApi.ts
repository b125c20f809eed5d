import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { envelopeOf, InvalidRequest, NotFound, NotRefreshable } from "../errors.js"
import { AdminAuthentication, Authentication } from "../http/Authentication.js"
import { ArtistId } from "../ids.js"
import { PlaylistDetail } from "../playlists/Playlists.js"
import { DiscoverDeck, Mbid, SimilarArtist, Snooze, SnoozeRequest, Suggestion } from "./Discover.js"
import { MetricsQuery, RecommendationMetrics } from "./Metrics.js"
import { MixesBuilt } from "./MixBuild.js"
import { Radio, RadioRequest } from "./Radio.js"
import { TuningSampleQuery } from "./reasons.js"
import { RecommendationTrends, TrendsQuery } from "./Trends.js"
import { TuningAuditRow, TuningPatchRequest, TuningResetRequest, TuningScopeView, TuningView } from "./Tuning.js"

const systemKind = HttpApiSchema.param("kind", Schema.String)
const mbid = HttpApiSchema.param("mbid", Mbid)
const artistId = HttpApiSchema.param("id", ArtistId)

/** A listener's own recommendation outcomes (spec "Metrics rules"). */
export class RecommendationsApi extends HttpApiGroup.make("recommendations")
  .add(
    HttpApiEndpoint.get("metrics", "/api/me/recommendation-metrics")
      .setUrlParams(MetricsQuery)
      .addSuccess(RecommendationMetrics)
      .annotate(
        OpenApi.Description,
        "Per-family play outcomes over `days` (default 30, at most 365) against the no-source baseline.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Recommendations: metrics") {}

/** The system playlists the daily rebuild writes (spec "Discover and playlists"). */
export class SystemPlaylistsApi extends HttpApiGroup.make("systemPlaylists")
  .add(
    HttpApiEndpoint.post("refresh")`/api/playlists/system/${systemKind}/refresh`
      .addSuccess(PlaylistDetail)
      .addError(envelopeOf(NotRefreshable))
      .annotate(
        OpenApi.Description,
        "Rebuilds the caller's system playlists now (the same rebuild as the 03:00 run) and answers the singleton `kind` (`for_you`, `discover`). `playlist.system_rebuilt` follows on the caller's event stream.",
      ),
  )
  .add(
    HttpApiEndpoint.post("build", "/api/me/mixes/build")
      .addSuccess(MixesBuilt)
      .annotate(
        OpenApi.Description,
        "\"Make my mixes now\": rebuilds the caller's system playlists and You-might-like rows now (the 03:00 rebuild, on the engine's worker thread) and answers how many playlists it wrote and how many are withheld. Single-flight per user: a call while the caller's rebuild runs (this route or a refresh) joins it. `playlist.system_rebuilt` follows on the caller's event stream.",
      ),
  )
  .add(
    HttpApiEndpoint.get("shuffle")`/api/playlists/system/${systemKind}/shuffle`
      .addSuccess(PlaylistDetail)
      .addError(envelopeOf(NotRefreshable))
      .annotate(
        OpenApi.Description,
        "A singleton system playlist (`for_you`, `discover`) ordered for this rotation: not yet heard (shuffled), then heard (shuffled). Uncached; varies per call.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Recommendations: system playlists") {}

/** Discover: artist suggestions, the track deck, snoozes (spec "Discover and playlists"). */
export class DiscoverApi extends HttpApiGroup.make("discover")
  .add(
    HttpApiEndpoint.get("suggestions", "/api/discover/suggestions")
      .addSuccess(Schema.Array(Suggestion))
      .annotate(
        OpenApi.Description,
        "Artists to discover, ranked by similarity × (1 + tag_overlap_weight × overlap) over an over-fetched pool; snoozed candidates left out.",
      ),
  )
  .add(HttpApiEndpoint.get("deck", "/api/discover/deck").addSuccess(DiscoverDeck))
  .add(
    HttpApiEndpoint.post("snooze")`/api/discover/suggestions/${mbid}/snooze`
      .setPayload(SnoozeRequest)
      .addSuccess(Snooze)
      .annotate(
        OpenApi.Description,
        "Parks a candidate for the caller only, for `days` (default: the tunable snooze_days). Snoozing again moves the end.",
      ),
  )
  .add(
    HttpApiEndpoint.del("unsnooze")`/api/discover/suggestions/${mbid}/snooze`
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Description, "The candidate returns. Idempotent: 204 whether or not it was snoozed."),
  )
  .add(HttpApiEndpoint.get("snoozes", "/api/discover/snoozes").addSuccess(Schema.Array(Snooze)))
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Recommendations: Discover") {}

/** Radio from a seed, and similar artists (scoring rules 3–4). */
export class RadioApi extends HttpApiGroup.make("radio")
  .add(
    HttpApiEndpoint.post("start", "/api/radio")
      .setPayload(RadioRequest)
      .addSuccess(Radio)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "A radio from a track, artist, album or genre seed; `size` defaults to the deployment's radio size and is clamped to its maximum. An unknown seed is 404.",
      ),
  )
  .add(
    HttpApiEndpoint.get("similarArtists")`/api/artists/${artistId}/similar`
      .addSuccess(Schema.Array(SimilarArtist))
      .addError(envelopeOf(NotFound))
      .annotate(OpenApi.Description, "In-library artists ranked by similarity, each once across sources."),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Recommendations: radio and similar artists") {}

/** Tuning the engine live, and checking what it did (spec "Administration"). */
export class TuningApi extends HttpApiGroup.make("tuning")
  .add(HttpApiEndpoint.get("get", "/api/admin/recommendation-tuning").addSuccess(TuningView))
  .add(
    HttpApiEndpoint.patch("patch", "/api/admin/recommendation-tuning")
      .setPayload(TuningPatchRequest)
      .addSuccess(TuningScopeView)
      .addError(envelopeOf(InvalidRequest))
      .annotate(
        OpenApi.Description,
        "Changes fields of one scope. Bounds and curve ordering are checked (400, nothing changes); an audit row is written only when something changed; every replica applies it to the next rebuild or radio.",
      ),
  )
  .add(
    HttpApiEndpoint.post("reset", "/api/admin/recommendation-tuning/reset")
      .setPayload(TuningResetRequest)
      .addSuccess(TuningScopeView),
  )
  .add(HttpApiEndpoint.get("audit", "/api/admin/recommendation-tuning/audit").addSuccess(Schema.Array(TuningAuditRow)))
  .add(
    HttpApiEndpoint.get("sample", "/api/admin/recommendation-tuning/sample")
      .setUrlParams(TuningSampleQuery)
      .addSuccess(PlaylistDetail)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "One user's system playlist (For You unless `variant` names another) with each entry's reason and score parts, so the tuning page can show how each weight moved the list. An unknown user or a playlist they do not have is 404.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: recommendation tuning") {}

/** What the engine did, week by week (spec "Administration"). */
export class TrendsApi extends HttpApiGroup.make("trends")
  .add(
    HttpApiEndpoint.get("get", "/api/admin/recommendation-trends")
      .setUrlParams(TrendsQuery)
      .addSuccess(RecommendationTrends)
      .annotate(
        OpenApi.Description,
        "Per family and ISO week: skip rate, sample-weighted completion, taste-hit rate against current profiles; plus tuning changes inside the window.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: recommendation trends") {}
