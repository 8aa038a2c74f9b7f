// The report's date presets, as calendar dates in the user's zone: `today` is the browser's local date
// (`localDate()`), and everything after is calendar arithmetic on `YYYY-MM-DD`, never on local instants.

export const DATE_PRESETS = [
  { id: 'this-quarter', label: 'This quarter' },
  { id: 'last-quarter', label: 'Last quarter' },
  { id: 'this-year', label: 'This year' },
  { id: 'last-12-months', label: 'Last 12 months' },
] as const
export type DatePreset = (typeof DATE_PRESETS)[number]['id']

export interface DateRange {
  from: string
  to: string
}

const pad = (n: number) => String(n).padStart(2, '0')

/** `YYYY-MM-DD` of a UTC calendar date. */
export function isoDay(date: Date): string {
  return `${String(date.getUTCFullYear())}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
}

/** The first day of a month (0-based, may overflow either way) and the last day of another. */
function monthStart(year: number, month: number): string {
  return isoDay(new Date(Date.UTC(year, month, 1)))
}
function monthEnd(year: number, month: number): string {
  return isoDay(new Date(Date.UTC(year, month + 1, 0)))
}

/** The days a preset covers on `today` (`YYYY-MM-DD`), both ends included. */
export function presetRange(preset: DatePreset, today: string): DateRange {
  const year = Number(today.slice(0, 4))
  const month = Number(today.slice(5, 7)) - 1
  const quarterStart = month - (month % 3)
  switch (preset) {
    case 'this-quarter':
      return { from: monthStart(year, quarterStart), to: monthEnd(year, quarterStart + 2) }
    case 'last-quarter':
      return { from: monthStart(year, quarterStart - 3), to: monthEnd(year, quarterStart - 1) }
    case 'this-year':
      return { from: `${String(year)}-01-01`, to: `${String(year)}-12-31` }
    case 'last-12-months':
      // Twelve whole months ending with this one.
      return { from: monthStart(year, month - 11), to: monthEnd(year, month) }
  }
}

/** The preset a range is, if any (to show it pressed). */
export function presetOf(range: Partial<DateRange>, today: string): DatePreset | undefined {
  return DATE_PRESETS.find(({ id }) => {
    const preset = presetRange(id, today)
    return preset.from === range.from && preset.to === range.to
  })?.id
}

/** The days of an ISO week (`2026-W14`): Monday to Sunday; week 1 holds the year's first Thursday (and 4 January). */
export function isoWeekRange(weekYear: number, week: number): DateRange {
  const jan4 = new Date(Date.UTC(weekYear, 0, 4))
  const monday = Date.UTC(weekYear, 0, 4 - ((jan4.getUTCDay() + 6) % 7) + (week - 1) * 7)
  return { from: isoDay(new Date(monday)), to: isoDay(new Date(monday + 6 * 86_400_000)) }
}

/** The days of a month (`2026-03`), a quarter (`2026-Q1`), an ISO week (`2026-W14`) or a year (`2026`). */
export function periodRange(key: string): DateRange | undefined {
  const year = Number(key.slice(0, 4))
  const month = /^\d{4}-(\d{2})$/.exec(key)?.[1]
  const quarter = /^\d{4}-Q([1-4])$/.exec(key)?.[1]
  const week = /^\d{4}-W(\d{2})$/.exec(key)?.[1]
  if (month !== undefined) {
    const m = Number(month) - 1
    return m >= 0 && m < 12 ? { from: monthStart(year, m), to: monthEnd(year, m) } : undefined
  }
  if (quarter !== undefined) {
    const first = (Number(quarter) - 1) * 3
    return { from: monthStart(year, first), to: monthEnd(year, first + 2) }
  }
  if (week !== undefined) return Number(week) >= 1 && Number(week) <= 53 ? isoWeekRange(year, Number(week)) : undefined
  if (/^\d{4}$/.test(key)) return { from: `${key}-01-01`, to: `${key}-12-31` }
  return undefined
}

/** Both ranges' common days; undefined ends are open. */
export function intersect(a: Partial<DateRange>, b: DateRange): DateRange {
  return {
    from: a.from !== undefined && a.from > b.from ? a.from : b.from,
    to: a.to !== undefined && a.to < b.to ? a.to : b.to,
  }
}
