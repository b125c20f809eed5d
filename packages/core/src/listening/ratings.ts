import { Schema } from "effect"

/**
 * Ratings: a listener's 1 to 5 stars on a track, album or artist (Subsonic `setRating`, a Navidrome database's
 * annotations). A rating is separate from a like: rating a song does not like it.
 */
export const RATING_MIN = 1
export const RATING_MAX = 5

export const RatingEntity = Schema.Literal("track", "album", "artist")
export type RatingEntity = typeof RatingEntity.Type

export const Rating = Schema.Int.pipe(Schema.between(RATING_MIN, RATING_MAX), Schema.brand("Rating"))
export type Rating = typeof Rating.Type

/**
 * What a Subsonic or Navidrome rating value asks for: 0 removes the rating (both protocols' "no rating"),
 * 1..5 sets it; anything else is not a rating.
 */
export const ratingChange = (value: number): { readonly set: Rating } | "remove" | "invalid" => {
  if (value === 0) return "remove"
  return Number.isInteger(value) && value >= RATING_MIN && value <= RATING_MAX ? { set: Rating.make(value) } : "invalid"
}
