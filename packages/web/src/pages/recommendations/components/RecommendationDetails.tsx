import { useSignal } from "@preact/signals"
import { BarChart, percent } from "../../../components/charts.js"
import { plural } from "../../../components/format.js"
import { TableScroll } from "../../../components/TableScroll.js"
import { Status, useLoad } from "../../../components/useLoad.js"
import { api } from "../../../state/api.js"

const FAMILY_LABEL: Record<string, string> = {
  go_to: "Go-to mixes",
  discovery: "Discovery",
  direct: "Albums, artists, playlists",
  radio: "Radio",
}

/** Chart labels stay short: the bars leave them little room. */
const SHORT_LABEL: Record<string, string> = { ...FAMILY_LABEL, direct: "Direct" }

const points = (value: number | null) => (value === null ? "–" : `${value > 0 ? "+" : ""}${value.toFixed(1)} pp`)

/**
 * How plays from each kind of source went (GET /api/me/recommendation-metrics), against plain plays: the
 * operator's view of the recommendations, kept behind the "details" disclosure of Your stats.
 */
export function RecommendationDetails() {
  const days = useSignal(30)
  const metrics = useLoad(
    (signal) => api((client) => client.recommendations.metrics({ urlParams: { days: days.value } }), signal),
    [days.value],
  )
  const data = metrics.data
  return (
    <div>
      <label>
        Window
        <select value={days.value} onChange={(event) => (days.value = Number(event.currentTarget.value))}>
          {[7, 30, 90, 365].map((value) => (
            <option key={value} value={value}>
              Last {value} days
            </option>
          ))}
        </select>
      </label>
      <Status loaded={metrics} />
      {data !== undefined && (
        <>
          <div class="chart-grid">
            <BarChart
              title="Skip rate by source"
              rows={[
                { label: "Plain plays", value: data.baseline.skip_rate },
                ...data.rows.map((row) => ({ label: SHORT_LABEL[row.family] ?? row.family, value: row.skip_rate })),
              ]}
            />
            <BarChart
              title="Average completion by source"
              rows={[
                { label: "Plain plays", value: data.baseline.avg_completion },
                ...data.rows.map((row) => ({
                  label: SHORT_LABEL[row.family] ?? row.family,
                  value: row.avg_completion,
                })),
              ]}
            />
          </div>
          <TableScroll label="Plays by source">
            <table class="data-table">
              <caption>Plays over the last {plural(data.window_days, "day")}</caption>
              <thead>
                <tr>
                  <th scope="col">Source</th>
                  <th scope="col">Plays</th>
                  <th scope="col">Skips</th>
                  <th scope="col">Skip rate</th>
                  <th scope="col">Completion</th>
                  <th scope="col">Skip rate vs plain</th>
                  <th scope="col">Completion vs plain</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th scope="row">Plain plays{data.baseline.low_confidence ? " (few plays)" : ""}</th>
                  <td>{data.baseline.plays}</td>
                  <td>{data.baseline.skips}</td>
                  <td>{percent(data.baseline.skip_rate)}</td>
                  <td>{percent(data.baseline.avg_completion)}</td>
                  <td>–</td>
                  <td>–</td>
                </tr>
                {data.rows.map((row) => (
                  <tr key={row.family}>
                    <th scope="row">
                      {FAMILY_LABEL[row.family] ?? row.family}
                      {row.low_confidence ? " (few plays)" : ""}
                    </th>
                    <td>{row.plays}</td>
                    <td>{row.skips}</td>
                    <td>{percent(row.skip_rate)}</td>
                    <td>{percent(row.avg_completion)}</td>
                    <td>{points(row.delta_skip_rate_pp)}</td>
                    <td>{points(row.delta_completion_pp)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
    </div>
  )
}
