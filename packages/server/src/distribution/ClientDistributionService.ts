import { createHash } from "node:crypto"
import { createReadStream, promises as fs } from "node:fs"
import * as path from "node:path"
import {
  APK_CONTENT_TYPE,
  CLIENT_APK_FILE,
  CLIENT_VERSION_FILE,
  ClientVersion,
  ClientVersionSidecar,
  INSTALLER_INTERVAL_SECONDS,
  installerRetryAfterSeconds,
  NotFound,
  parseRange,
  RateLimited,
  startsAtByteZero,
  type UserId,
} from "@tonearm/core"
import { Effect, Either, ParseResult, Ref, Schema } from "effect"
import { currentDate } from "../clock.js"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { ClientDownloadRepository } from "./ClientDownloadRepository.js"

/** What to answer for an installer request; the handler turns it into a response. */
export type ApkPlan =
  | {
      readonly _tag: "Bytes"
      readonly status: 200 | 206
      readonly path: string
      readonly start: number
      readonly end: number
      readonly headers: Record<string, string>
    }
  | { readonly _tag: "Unsatisfiable"; readonly headers: Record<string, string> }

const absent = new NotFound({ message: "no client installer is available", resource: "installer" })

interface Installer {
  readonly apkPath: string
  readonly sizeBytes: number
  readonly mtimeMs: number
  readonly sidecar: ClientVersionSidecar
}

/** SHA-256 of a file, streamed (the installer can be tens of MB; nothing holds it whole in memory). */
const sha256Of = (file: string) =>
  Effect.async<string, Error>((resume) => {
    const hash = createHash("sha256")
    const stream = createReadStream(file)
    stream.on("data", (chunk) => hash.update(chunk))
    stream.on("error", (error) => resume(Effect.fail(error)))
    stream.on("end", () => resume(Effect.succeed(hash.digest("hex"))))
    return Effect.sync(() => stream.destroy())
  })

/**
 * The mobile client's installer (spec "Client distribution"): `app.apk` and its build sidecar
 * `version.json` in the installer directory; both answer 404 unless both exist (a malformed sidecar is
 * logged and answered 404). A download that starts at byte 0 may start once per 60 s per user.
 */
export class ClientDistributionService extends Effect.Service<ClientDistributionService>()(
  "@tonearm/server/ClientDistributionService",
  {
    effect: Effect.gen(function* () {
      const { clientApkDir } = yield* TonearmConfig
      const downloads = yield* ClientDownloadRepository
      /** The installer's hash, kept while its size and mtime stay the same (a new build replaces it). */
      const hashCache = yield* Ref.make<{ key: string; sha256: string } | undefined>(undefined)

      const installer = Effect.gen(function* () {
        const apkPath = path.join(clientApkDir, CLIENT_APK_FILE)
        const versionPath = path.join(clientApkDir, CLIENT_VERSION_FILE)
        const found = yield* Effect.promise(async () => {
          try {
            const [apk, sidecar] = await Promise.all([fs.stat(apkPath), fs.readFile(versionPath, "utf8")])
            return apk.isFile() ? { apk, sidecar } : undefined
          } catch {
            return undefined
          }
        })
        if (found === undefined) return yield* absent
        const parsed = Either.flatMap(
          Either.try(() => JSON.parse(found.sidecar) as unknown),
          (json) => Schema.decodeUnknownEither(ClientVersionSidecar)(json, { onExcessProperty: "ignore" }),
        )
        if (Either.isLeft(parsed)) {
          const reason = ParseResult.isParseError(parsed.left)
            ? ParseResult.TreeFormatter.formatErrorSync(parsed.left)
            : "not JSON"
          yield* Effect.logError(`client installer: ${versionPath} is malformed (${reason}); answering 404`)
          return yield* absent
        }
        return {
          apkPath,
          sizeBytes: found.apk.size,
          mtimeMs: Math.floor(found.apk.mtimeMs),
          sidecar: parsed.right,
        } satisfies Installer
      })

      const version = Effect.gen(function* () {
        const found = yield* installer
        const key = `${found.apkPath}|${found.sizeBytes}|${found.mtimeMs}`
        const cached = yield* Ref.get(hashCache)
        const sha256 =
          cached?.key === key
            ? cached.sha256
            : yield* sha256Of(found.apkPath).pipe(
                Effect.tap((digest) => Ref.set(hashCache, { key, sha256: digest })),
                Effect.catchAll((error) =>
                  Effect.logError(`client installer: could not read ${found.apkPath}`, error).pipe(
                    Effect.zipRight(Effect.fail(absent)),
                  ),
                ),
              )
        return new ClientVersion({
          version: found.sidecar.version,
          version_code: found.sidecar.version_code,
          size_bytes: found.sizeBytes,
          sha256,
          notes: found.sidecar.notes ?? null,
        })
      }).pipe(Effect.withSpan("ClientDistributionService.version"))

      /**
       * Single ranges per RFC 9110. Only a download from byte 0 counts toward the per-user limit (contract):
       * a resume is never limited, and 404s, 416s and 429s neither count nor restart the window. A HEAD
       * (a client checking the size before it downloads) sends no bytes and never counts.
       */
      const apk = Effect.fn("ClientDistributionService.apk")(function* (
        user: UserId,
        request: {
          readonly range?: string | undefined
          readonly ifRange?: string | undefined
          readonly head?: boolean | undefined
        },
      ) {
        const found = yield* installer
        const size = found.sizeBytes
        const etag = `"${size.toString(36)}-${found.mtimeMs.toString(36)}"`
        const lastModified = new Date(found.mtimeMs).toUTCString()
        const base = {
          "accept-ranges": "bytes",
          "cache-control": "private, no-cache",
          "content-type": APK_CONTENT_TYPE,
          "content-disposition": `attachment; filename="${CLIENT_APK_FILE}"`,
          etag,
          "last-modified": lastModified,
        }
        const rangeApplies =
          request.ifRange === undefined || request.ifRange === etag || request.ifRange === lastModified
        const rangeHeader = rangeApplies ? request.range : undefined
        const range = parseRange(rangeHeader, size)
        if (range._tag === "Unsatisfiable") {
          return { _tag: "Unsatisfiable", headers: { ...base, "content-range": `bytes */${size}` } } satisfies ApkPlan
        }
        if (request.head !== true && startsAtByteZero(rangeHeader, size)) {
          const now = yield* currentDate
          const windowStart = new Date(now.getTime() - INSTALLER_INTERVAL_SECONDS * 1000)
          const current = yield* downloads.claim(user, now, windowStart)
          if (current !== undefined) {
            const retryAfter = Math.max(1, installerRetryAfterSeconds(current.getTime(), now.getTime()))
            return yield* new RateLimited({
              message: `one installer download per ${INSTALLER_INTERVAL_SECONDS} seconds; retry in ${retryAfter} s`,
              retry_after_seconds: retryAfter,
            })
          }
        }
        return range._tag === "Partial"
          ? ({
              _tag: "Bytes",
              status: 206,
              path: found.apkPath,
              start: range.start,
              end: range.end,
              headers: { ...base, "content-range": `bytes ${range.start}-${range.end}/${size}` },
            } satisfies ApkPlan)
          : ({
              _tag: "Bytes",
              status: 200,
              path: found.apkPath,
              start: 0,
              end: size - 1,
              headers: base,
            } satisfies ApkPlan)
      })

      return { version, apk } as const
    }),
    dependencies: [ClientDownloadRepository.Default],
  },
) {}
