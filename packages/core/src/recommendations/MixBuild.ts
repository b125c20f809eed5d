import { Schema } from "effect"

/** What "Make my mixes now" answers: how many system playlists the rebuild wrote, and how many are locked. */
export class MixesBuilt extends Schema.Class<MixesBuilt>("MixesBuilt")({
  playlists: Schema.NonNegativeInt,
  withheld: Schema.NonNegativeInt,
}) {}
