import { genreHref } from "./format.js"

/** Genre chips: each a quick-jump link to the albums of that genre (slash-safe, see genreHref). */
export function GenreChips(props: { readonly genres: ReadonlyArray<string> }) {
  if (props.genres.length === 0) return null
  return (
    <ul class="chips" aria-label="Genres">
      {props.genres.map((genre) => (
        <li key={genre}>
          <a class="chip" href={genreHref(genre)}>
            {genre}
          </a>
        </li>
      ))}
    </ul>
  )
}
