import { SUBSONIC_MUSIC_FOLDER_ID, type SubsonicPayload } from "@tonearm/core"
import { Effect, Option } from "effect"
import { AccountsService } from "../../accounts/index.js"
import { notAuthorized, notFound } from "../failures.js"
import { method, param, type SubsonicMethod } from "../method.js"

/** User management, read-only: who a key belongs to, and a user's roles. */
export const userMethods: ReadonlyArray<SubsonicMethod> = [
  // OpenSubsonic apiKeyAuthentication: whose the key is (any other sign-in answers its user too, as Navidrome does).
  method("tokenInfo", {}, (user) => Effect.succeed({ tokenInfo: { username: user.username } })),

  /** A user may read their own record; an admin anyone's. Roles follow what Tonearm lets each do. */
  method("getUser", { username: param.required }, (user, { username }) =>
    Effect.gen(function* () {
      if (username !== user.username && !user.isAdmin) return yield* notAuthorized("Only admins can read other users")
      const accounts = yield* AccountsService
      const target = username === user.username ? Option.some(user) : yield* accounts.userByName(username)
      if (Option.isNone(target)) return yield* notFound("user")
      // Deleted since they signed in: gone, as for anyone else.
      const me = yield* accounts.me(target.value.id).pipe(Effect.catchTag("Unauthenticated", () => notFound("user")))
      const admin = target.value.isAdmin
      return {
        user: {
          username: me.username,
          ...(me.email === null ? {} : { email: me.email }),
          scrobblingEnabled: true,
          adminRole: admin,
          settingsRole: true,
          downloadRole: true,
          uploadRole: false,
          playlistRole: true,
          coverArtRole: false,
          commentRole: false,
          podcastRole: false,
          streamRole: true,
          jukeboxRole: false,
          shareRole: false,
          videoConversionRole: false,
          folder: [SUBSONIC_MUSIC_FOLDER_ID],
        },
      } satisfies SubsonicPayload
    }),
  ),
]
