import { Schema } from "effect"
import { SessionId } from "../ids.js"

/** A row of GET /api/me/sessions (contract "Accounts, auth, sessions"). */
export class SessionRow extends Schema.Class<SessionRow>("SessionRow")({
  id: SessionId,
  user_agent: Schema.String,
  created_ip: Schema.String,
  last_ip: Schema.String,
  created_at: Schema.DateTimeUtc,
  last_seen_at: Schema.DateTimeUtc,
  current: Schema.Boolean,
}) {}

export class LogoutOthersResult extends Schema.Class<LogoutOthersResult>("LogoutOthersResult")({
  revoked: Schema.Int,
}) {}

/** Session lifetime (contract): expires after 30 days without an authenticated request. */
export const SESSION_IDLE_DAYS = 30
/** Reset tokens are single-use and live one hour. */
export const PASSWORD_RESET_TTL_MINUTES = 60
/** Login throttle (contract): 10 failures in 15 minutes per username and per client address. */
export const LOGIN_FAILURE_LIMIT = 10
export const LOGIN_FAILURE_WINDOW_MINUTES = 15
