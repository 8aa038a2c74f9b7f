/*
 * The report's raw search params, as the route keeps them: only its own keys, only text. Every route's first visit
 * loads a route's `validateSearch`, so this one stays this small; `reportSearchOf` (loaded with the page) checks
 * the values and fills in the defaults.
 */
const KEYS = ['by', 'pipeline', 'status', 'owners', 'from', 'to', 'dates', 'group'] as const
export type ReportParams = Partial<Record<(typeof KEYS)[number], string>>

/** Every key is present (undefined when absent or not text): the router merges this over the raw params. */
export function reportParamsOf(search: Record<string, unknown>): ReportParams {
  const params: ReportParams = {}
  for (const key of KEYS) {
    // A year typed into the URL (`group=2026`) arrives as a number.
    const value = search[key]
    params[key] = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined
  }
  return params
}
