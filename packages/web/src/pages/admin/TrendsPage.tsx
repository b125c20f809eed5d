import { useSignal } from "@preact/signals"
import { AdminOnly } from "../../components/AdminOnly.js"
import { LineChart, percent } from "../../components/charts.js"
import { plural } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"

const FAMILY_LABEL: Record<string, string> = {
  baseline: "Plain plays",
  go_to: "Go-to mixes",
  discovery: "Discovery",
  direct: "Direct",
  radio: "Radio",
}

const METRICS = [
  { key: "skip_rate", title: "Skip rate per week" },
  { key: "avg_completion", title: "Completion per week (sample-weighted)" },
  { key: "taste_hit_rate", title: "Taste-hit rate per week" },
  { key: "first_listen_share", title: "Share of first listens per week" },
  { key: "intra_list_diversity", title: "Intra-list diversity per week (pairs by different artists)" },
] as const

/** Admin: per-source metrics week by week (GET /api/admin/recommendation-trends), with tuning changes marked. */
function Trends() {
  const weeks = useSignal(12)
  const trends = useLoad(
    (signal) => api((client) => client.trends.get({ urlParams: { weeks: weeks.value } }), signal),
    [weeks.value],
  )
  const data = trends.data
  const markers =
    data?.markers.map((marker) => ({
      index: data.weeks.indexOf(marker.week),
      label: `${marker.week}: ${marker.scope} ${marker.fields.join(", ")}`,
    })) ?? []
  return (
    <section>
      <h1>Recommendation trends</h1>
      <label>
        Weeks
        <select value={weeks.value} onChange={(event) => (weeks.value = Number(event.currentTarget.value))}>
          {[4, 12, 26, 52].map((value) => (
            <option key={value} value={value}>
              Last {value} weeks
            </option>
          ))}
        </select>
      </label>
      <Status loaded={trends} />
      {data !== undefined && (
        <>
          <div class="chart-grid">
            {METRICS.map((metric) => (
              <LineChart
                key={metric.key}
                title={metric.title}
                labels={data.weeks}
                markers={markers.filter((marker) => marker.index >= 0)}
                series={data.series.map((series) => ({
                  name: FAMILY_LABEL[series.family] ?? series.family,
                  values: data.weeks.map(
                    (week) => series.points.find((point) => point.week === week)?.[metric.key] ?? null,
                  ),
                }))}
              />
            ))}
          </div>
          <TableScroll label="Plays per family and week">
            <table class="data-table">
              <caption>Plays per family and week</caption>
              <thead>
                <tr>
                  <th scope="col">Week</th>
                  {data.series.map((series) => (
                    <th scope="col" key={series.family}>
                      {FAMILY_LABEL[series.family] ?? series.family}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {data.weeks.map((week) => (
                  <tr key={week}>
                    <th scope="row">{week}</th>
                    {data.series.map((series) => {
                      const point = series.points.find((candidate) => candidate.week === week)
                      return (
                        <td key={series.family}>
                          {point === undefined || point.plays === 0
                            ? "–"
                            : `${plural(point.plays, "play")} · skips ${percent(point.skip_rate)}`}
                        </td>
                      )
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          {data.markers.length > 0 && (
            <>
              <h2>Tuning changes in this window</h2>
              <ul class="list">
                {data.markers.map((marker) => (
                  <li key={marker.audit_id}>
                    {marker.week}: {marker.scope} — {marker.fields.join(", ")}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  )
}

export default function TrendsPage() {
  return (
    <AdminOnly>
      <Trends />
    </AdminOnly>
  )
}
