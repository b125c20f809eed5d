import { yearHref } from "../../components/format.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"

/** Years with albums, grouped by decade; each year and decade is a quick-jump link to its albums. */
export default function YearsPage() {
  const years = useLoad((signal) => api((client) => client.library.years(), signal), [])
  const decades = new Map<number, Array<{ year: number; album_count: number }>>()
  for (const row of years.data ?? []) {
    const decade = Math.floor(row.year / 10) * 10
    decades.set(decade, [...(decades.get(decade) ?? []), row])
  }
  return (
    <section>
      <h1>Years</h1>
      <Status loaded={years} />
      {[...decades].map(([decade, rows]) => (
        <section key={decade} aria-labelledby={`decade-${decade}`}>
          <h2 id={`decade-${decade}`}>
            <a href={`/albums?year_from=${decade}&year_to=${decade + 9}`}>{decade}s</a>
          </h2>
          <ul class="chips">
            {rows.map((row) => (
              <li key={row.year}>
                <a class="chip" href={yearHref(row.year)}>
                  {row.year} <span class="muted">({row.album_count})</span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  )
}
