import { Effect } from "effect"
import { ScanService } from "../../library/index.js"
import { notAuthorized } from "../failures.js"
import { anonymousMethod, method, param, type SubsonicMethod } from "../method.js"

/** The OpenSubsonic extensions Tonearm implements. */
export const OPEN_SUBSONIC_EXTENSIONS = [
  { name: "formPost", versions: [1] },
  { name: "apiKeyAuthentication", versions: [1] },
  { name: "transcodeOffset", versions: [1] },
  { name: "songLyrics", versions: [1] },
] as const

const scanStatus = Effect.flatMap(ScanService, (scans) => scans.status).pipe(
  Effect.map((status) => ({ scanStatus: { scanning: status.state === "running", count: status.files_seen } })),
)

/** System: ping, license, the OpenSubsonic extensions, and library scanning. */
export const systemMethods: ReadonlyArray<SubsonicMethod> = [
  method("ping", {}, () => Effect.succeed({})),
  method("getLicense", {}, () => Effect.succeed({ license: { valid: true } })),

  // OpenSubsonic: the extension list answers without credentials.
  anonymousMethod("getOpenSubsonicExtensions", {}, () =>
    Effect.succeed({
      openSubsonicExtensions: OPEN_SUBSONIC_EXTENSIONS.map((e) => ({ ...e, versions: [...e.versions] })),
    }),
  ),

  method("getScanStatus", {}, () => scanStatus),

  method("startScan", { fullScan: param.bool(false) }, (user, { fullScan }) =>
    Effect.gen(function* () {
      if (!user.isAdmin) return yield* notAuthorized("Only admins can start a scan")
      yield* (yield* ScanService).start(fullScan)
      return yield* scanStatus
    }),
  ),
]
