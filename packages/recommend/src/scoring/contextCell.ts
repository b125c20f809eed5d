import type { LocalTime } from "@tonearm/core"

/** Dayparts (rule 3): night [22, 5), morning [5, 12), afternoon [12, 17), evening [17, 22). */
export const DAYPARTS = ["night", "morning", "afternoon", "evening"] as const
export type Daypart = (typeof DAYPARTS)[number]

export const daypartOfHour = (hour: number): Daypart =>
  hour >= 22 || hour < 5 ? "night" : hour < 12 ? "morning" : hour < 17 ? "afternoon" : "evening"

/** Saturday and Sunday are the weekend. */
export const isWeekend = (isoWeekday: number): boolean => isoWeekday >= 6

/** The context cell: daypart × weekday-or-weekend, as 0–7 (daypart index × 2 + weekend). */
export const contextCellOf = (local: LocalTime): number =>
  DAYPARTS.indexOf(daypartOfHour(local.hour)) * 2 + (isWeekend(local.isoWeekday) ? 1 : 0)

export const describeCell = (cell: number): { readonly daypart: Daypart; readonly weekend: boolean } => ({
  daypart: DAYPARTS[Math.floor(cell / 2)]!,
  weekend: cell % 2 === 1,
})
