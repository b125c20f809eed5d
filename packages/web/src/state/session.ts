import { signal } from "@preact/signals"

/** Who is signed in: `undefined` while the app asks, `null` when nobody is (the sign-in page shows). */
export interface SignedInUser {
  readonly id: string
  readonly username: string
  readonly is_admin: boolean
}
export const session = signal<SignedInUser | null | undefined>(undefined)
