/**
 * Small inline SVG charts (no chart library: the pages stay small lazy chunks). Each chart is an image with a
 * text alternative, and the numbers are also in a table next to it for screen readers and copying.
 */

import { TableScroll } from "./TableScroll.js"

const COLORS = ["#f5a524", "#7cc4ff", "#8bd17c", "#e58cf2", "#c9c9d3"]
export const seriesColor = (index: number) => COLORS[index % COLORS.length]!

export const percent = (value: number | null | undefined) =>
  value === null || value === undefined ? "–" : `${(value * 100).toFixed(1)}%`

export interface LineSeries {
  readonly name: string
  readonly values: ReadonlyArray<number | null>
}

/** Rates (0–1) over weeks: one line per series, gaps where a week has no value, dashed markers for events. */
export function LineChart(props: {
  readonly title: string
  readonly labels: ReadonlyArray<string>
  readonly series: ReadonlyArray<LineSeries>
  readonly markers?: ReadonlyArray<{ readonly index: number; readonly label: string }>
}) {
  const width = 560
  const height = 180
  const left = 40
  const bottom = 24
  const top = 8
  const plotWidth = width - left - 8
  const plotHeight = height - top - bottom
  const count = Math.max(props.labels.length, 1)
  const x = (index: number) => left + (count === 1 ? plotWidth / 2 : (index / (count - 1)) * plotWidth)
  const y = (value: number) => top + (1 - Math.max(0, Math.min(1, value))) * plotHeight
  const paths = props.series.map((series) => {
    let d = ""
    let pen = false
    series.values.forEach((value, index) => {
      if (value === null) {
        pen = false
        return
      }
      d += `${pen ? "L" : "M"}${x(index).toFixed(1)},${y(value).toFixed(1)}`
      pen = true
    })
    return d
  })
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={props.title} width="100%">
        <title>{props.title}</title>
        {[0, 0.5, 1].map((tick) => (
          <g key={tick}>
            <line x1={left} x2={width - 8} y1={y(tick)} y2={y(tick)} class="grid" />
            <text x={left - 4} y={y(tick) + 4} text-anchor="end" class="axis">
              {tick * 100}%
            </text>
          </g>
        ))}
        {props.labels.map((label, index) =>
          index % Math.ceil(count / 6) === 0 ? (
            <text key={label} x={x(index)} y={height - 6} text-anchor="middle" class="axis">
              {label.replace(/^\d{4}-/, "")}
            </text>
          ) : null,
        )}
        {props.markers?.map((marker) => (
          <g key={`${marker.index}:${marker.label}`}>
            <line x1={x(marker.index)} x2={x(marker.index)} y1={top} y2={top + plotHeight} class="marker" />
            <title>{marker.label}</title>
          </g>
        ))}
        {paths.map((d, index) => (
          <path key={props.series[index]!.name} d={d} fill="none" stroke={seriesColor(index)} stroke-width="2" />
        ))}
        {props.series.map((series, index) =>
          series.values.map((value, at) =>
            value === null ? null : (
              <circle key={`${series.name}:${at}`} cx={x(at)} cy={y(value)} r="2.5" fill={seriesColor(index)} />
            ),
          ),
        )}
      </svg>
      <figcaption>
        <strong>{props.title}</strong>
        <ul class="legend">
          {props.series.map((series, index) => (
            <li key={series.name}>
              <span class="swatch" style={{ background: seriesColor(index) }} aria-hidden="true" />
              {series.name}
            </li>
          ))}
          {props.markers !== undefined && props.markers.length > 0 && (
            <li>
              <span class="swatch marker-swatch" aria-hidden="true" />
              tuning change
            </li>
          )}
        </ul>
      </figcaption>
    </figure>
  )
}

/** Horizontal bars of rates (0–1), one per row, with the value written next to each bar. */
export function BarChart(props: {
  readonly title: string
  readonly rows: ReadonlyArray<{ readonly label: string; readonly value: number | null }>
}) {
  const rowHeight = 26
  const labelWidth = 130
  const width = 460
  const barWidth = width - labelWidth - 60
  const height = props.rows.length * rowHeight + 4
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={props.title} width="100%">
        <title>{props.title}</title>
        {props.rows.map((row, index) => {
          const value = Math.max(0, Math.min(1, row.value ?? 0))
          const top = index * rowHeight + 2
          return (
            <g key={row.label}>
              <text x={labelWidth - 6} y={top + 17} text-anchor="end" class="axis">
                {row.label}
              </text>
              <rect x={labelWidth} y={top + 4} width={barWidth} height={rowHeight - 8} class="track-bg" />
              <rect
                x={labelWidth}
                y={top + 4}
                width={value * barWidth}
                height={rowHeight - 8}
                fill={seriesColor(index)}
              />
              <text x={labelWidth + barWidth + 6} y={top + 17} class="axis">
                {percent(row.value)}
              </text>
            </g>
          )
        })}
      </svg>
      <figcaption>
        <strong>{props.title}</strong>
      </figcaption>
    </figure>
  )
}

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
const hourLabel = (hour: number) => `${String(hour).padStart(2, "0")}:00`

/** The busiest cell of a clock (the first one on a tie), or undefined when it is all zeros. */
export const clockPeak = (clock: ReadonlyArray<ReadonlyArray<number>>) => {
  let peak: { readonly day: number; readonly hour: number; readonly plays: number } | undefined
  for (const [day, hours] of clock.entries())
    for (const [hour, plays] of hours.entries())
      if (plays > 0 && (peak === undefined || plays > peak.plays)) peak = { day, hour, plays }
  return peak
}

/**
 * The listening clock: a heatmap of 7 weekdays (Monday first) × 24 hours, each cell shaded by its share of the
 * busiest cell, with its count in a tooltip (`<title>`). The image is described by its peak; the numbers are in
 * a table behind a disclosure for screen readers and copying.
 */
export function Heatmap(props: { readonly title: string; readonly clock: ReadonlyArray<ReadonlyArray<number>> }) {
  const cell = 22
  const left = 40
  const top = 18
  const width = left + 24 * cell + 4
  const height = top + 7 * cell + 4
  const max = Math.max(1, ...props.clock.flat())
  const peak = clockPeak(props.clock)
  const description =
    peak === undefined
      ? `${props.title}: no plays in this period`
      : `${props.title}: most plays on ${WEEKDAYS[peak.day]} at ${hourLabel(peak.hour)} (${peak.plays})`
  return (
    <figure class="chart heatmap">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={description} width="100%">
        <title>{description}</title>
        {[0, 3, 6, 9, 12, 15, 18, 21].map((hour) => (
          <text key={hour} x={left + hour * cell + cell / 2} y={12} text-anchor="middle" class="axis">
            {hour}
          </text>
        ))}
        {props.clock.map((hours, day) => (
          <g key={WEEKDAYS[day]}>
            <text x={left - 6} y={top + day * cell + cell / 2 + 4} text-anchor="end" class="axis">
              {WEEKDAYS[day]!.slice(0, 3)}
            </text>
            {hours.map((plays, hour) => (
              <rect
                key={hour}
                x={left + hour * cell + 1}
                y={top + day * cell + 1}
                width={cell - 2}
                height={cell - 2}
                rx="3"
                class={plays === 0 ? "heat-empty" : "heat"}
                fill-opacity={plays === 0 ? undefined : (0.2 + (0.8 * plays) / max).toFixed(2)}
              >
                <title>
                  {WEEKDAYS[day]} {hourLabel(hour)}: {plays} {plays === 1 ? "play" : "plays"}
                </title>
              </rect>
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        <details>
          <summary>As a table</summary>
          <TableScroll label="Plays per weekday and hour">
            <table class="data-table clock-table">
              <caption>Plays per weekday and hour</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  {Array.from({ length: 24 }, (_, hour) => (
                    <th key={hour} scope="col">
                      {hour}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {props.clock.map((hours, day) => (
                  <tr key={WEEKDAYS[day]}>
                    <th scope="row">{WEEKDAYS[day]}</th>
                    {hours.map((plays, hour) => (
                      <td key={hour}>{plays}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </details>
      </figcaption>
    </figure>
  )
}

/** A bar of a count against the list's largest, drawn beside a list row (the number is written in the row). */
export function CountBar(props: { readonly value: number; readonly max: number }) {
  const share = props.max > 0 ? props.value / props.max : 0
  return (
    <svg class="count-bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
      <rect x="0" y="0" width="100" height="8" rx="2" class="track-bg" />
      <rect x="0" y="0" width={(share * 100).toFixed(1)} height="8" rx="2" class="bar" />
    </svg>
  )
}
