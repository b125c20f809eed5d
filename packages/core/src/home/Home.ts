import { Schema } from "effect"
import { AlbumRef, Artist } from "../library/Library.js"

/** GET /api/home: the sections of the home screen. */
export class Home extends Schema.Class<Home>("Home")({
  recently_added: Schema.Array(AlbumRef),
  rediscover_albums: Schema.Array(AlbumRef),
  rediscover_artists: Schema.Array(Artist),
  most_played: Schema.Array(AlbumRef),
  last_played: Schema.Array(AlbumRef),
  you_might_like_albums: Schema.Array(AlbumRef),
  you_might_like_artists: Schema.Array(Artist),
}) {}

/** GET /api/home/index: the same sections, each a flat array of entity ids. */
export class HomeIndex extends Schema.Class<HomeIndex>("HomeIndex")({
  recently_added: Schema.Array(Schema.String),
  rediscover_albums: Schema.Array(Schema.String),
  rediscover_artists: Schema.Array(Schema.String),
  most_played: Schema.Array(Schema.String),
  last_played: Schema.Array(Schema.String),
  you_might_like_albums: Schema.Array(Schema.String),
  you_might_like_artists: Schema.Array(Schema.String),
}) {}

/** Home section sizes: the listening sections hold 20 albums or artists; You might like is trimmed to 10. */
export const HOME_RECENTLY_ADDED = 20
export const HOME_SECTION_SIZE = 20
