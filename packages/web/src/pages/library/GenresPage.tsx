import { genreHref } from "../../components/format.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"

/** The genre index (spec "Genre rule"): each genre a quick-jump link with the genre as an encoded query value. */
export default function GenresPage() {
  const genres = useLoad((signal) => api((client) => client.library.genres(), signal), [])
  return (
    <section>
      <h1>Genres</h1>
      <Status loaded={genres} />
      {genres.data !== undefined && (
        <ul class="chips big" aria-label="Genres">
          {genres.data.map((row) => (
            <li key={row.genre}>
              <a class="chip" href={genreHref(row.genre)}>
                {row.genre} <span class="muted">({row.track_count})</span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
