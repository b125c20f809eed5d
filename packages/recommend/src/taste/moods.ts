/**
 * The canonical mood vocabulary (spec "Playback and taste"): mood buckets derive from a track's enriched
 * folksonomy tags through this one table, used by the taste-profile builder and the scorer alike, so a
 * mood the builder learned is always a mood the scorer can look up. Tags are matched case- and
 * spacing-insensitively (folksonomy spellings vary; the genre rule's no-folding applies to genres only).
 */
export const MOODS = [
  "melancholic",
  "energetic",
  "chill",
  "happy",
  "aggressive",
  "romantic",
  "dark",
  "uplifting",
  "dreamy",
] as const
export type Mood = (typeof MOODS)[number]

const SYNONYMS: Readonly<Record<Mood, ReadonlyArray<string>>> = {
  melancholic: [
    "melancholic",
    "melancholy",
    "melancholia",
    "sad",
    "sadness",
    "depressing",
    "depressive",
    "heartbreak",
    "bittersweet",
    "sorrow",
  ],
  energetic: ["energetic", "energy", "high energy", "upbeat", "party", "driving", "workout", "fast", "hyper"],
  chill: [
    "chill",
    "chillout",
    "chill out",
    "chilled",
    "relaxing",
    "relax",
    "relaxed",
    "mellow",
    "calm",
    "laid back",
    "laidback",
    "easy listening",
    "soothing",
    "lounge",
  ],
  happy: ["happy", "feel good", "feelgood", "cheerful", "joyful", "fun", "sunny", "summer"],
  aggressive: ["aggressive", "angry", "rage", "brutal", "furious", "intense"],
  romantic: ["romantic", "love", "love songs", "love song", "sensual", "sexy", "seductive"],
  dark: ["dark", "gloomy", "sinister", "haunting", "creepy", "ominous", "brooding"],
  uplifting: ["uplifting", "inspiring", "inspirational", "hopeful", "euphoric", "anthemic", "epic"],
  dreamy: ["dreamy", "ethereal", "atmospheric", "hypnotic", "spacey", "floating", "dream"],
}

const normalise = (tag: string) =>
  tag
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, " ")

const MOOD_OF_TAG: ReadonlyMap<string, Mood> = new Map(
  MOODS.flatMap((mood) => SYNONYMS[mood].map((tag) => [normalise(tag), mood] as const)),
)

/** The mood bucket of one enriched tag, if the vocabulary knows it. */
export const moodOfTag = (tag: string): Mood | undefined => MOOD_OF_TAG.get(normalise(tag))

/** The distinct mood buckets of a track's enriched tags (empty: the track has no mood data). */
export const moodsOfTags = (tags: Iterable<string>): ReadonlyArray<Mood> => {
  const moods: Array<Mood> = []
  for (const tag of tags) {
    const mood = moodOfTag(tag)
    if (mood !== undefined && !moods.includes(mood)) moods.push(mood)
  }
  return moods
}
