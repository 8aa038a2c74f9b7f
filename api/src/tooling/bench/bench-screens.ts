// The screens' largest contentful paint (issue 34: under 300 ms on every screen at 100,000 leads): each screen loaded
// fresh a few times in Debian's Chromium, through a real BFF signed in to the bench's organization, by
// e2e/screen-paint.mjs (Playwright lives in the e2e package). Measured and printed, never asserted in a test.

export const SCREEN_PAINT_TARGET_MS = 300

export interface Screen {
  name: string
  path: string
}

/** The app's screens, by the names of their header links; a lead's page is the first lead of the bench's sample. */
export function benchScreens(leadId: string): Screen[] {
  return [
    { name: 'Leads', path: '/leads' },
    { name: 'Lead', path: `/leads/${leadId}` },
    { name: 'Inbox', path: '/inbox' },
    { name: 'Opportunities', path: '/opportunities' },
    { name: 'Reports', path: '/reports' },
    { name: 'Settings', path: '/settings' },
  ]
}

export interface ScreenPaint extends Screen {
  /** Each load's largest contentful paint in ms (null: the browser reported none). */
  lcp: (number | null)[]
}

/**
 * Reads e2e/screen-paint.mjs's output: `{ screens: [{ name, path, lcp, landed }] }`. A screen whose loads ended on
 * another path than its own or one of its sections (the sign-in page, say) was not measured: an error.
 */
export function parseScreenPaints(stdout: string): ScreenPaint[] {
  const parsed: unknown = JSON.parse(stdout)
  const screens: unknown = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'screens') : undefined
  if (!Array.isArray(screens)) throw new Error('the screens measurement printed no screens')
  return screens.map((screen: unknown) => {
    const name: unknown = typeof screen === 'object' && screen !== null ? Reflect.get(screen, 'name') : undefined
    const path: unknown = typeof screen === 'object' && screen !== null ? Reflect.get(screen, 'path') : undefined
    const lcp: unknown = typeof screen === 'object' && screen !== null ? Reflect.get(screen, 'lcp') : undefined
    const landed: unknown = typeof screen === 'object' && screen !== null ? Reflect.get(screen, 'landed') : undefined
    if (typeof name !== 'string' || typeof path !== 'string' || !Array.isArray(lcp)) {
      throw new Error('the screens measurement printed a screen without its name, path or paints')
    }
    // A screen may open on one of its own sections (Settings on its first page).
    const ownPath = (at: unknown) => at === path || (typeof at === 'string' && at.startsWith(`${path}/`))
    const elsewhere = Array.isArray(landed) ? landed.filter((at: unknown) => !ownPath(at)) : ['nowhere']
    if (elsewhere.length > 0) throw new Error(`${name} (${path}) ended on ${elsewhere.map(String).join(', ')}`)
    return { name, path, lcp: lcp.map((ms: unknown) => (typeof ms === 'number' ? ms : null)) }
  })
}

/** The median of the loads' paints (a load without one counts as missing the target). */
function median(values: readonly (number | null)[]): number | null {
  if (values.length === 0 || values.some((v) => v === null)) return null
  const sorted = values.flatMap((v) => (v === null ? [] : [v])).sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? null
}

/** One screen's median paint against the target, as a run's figures file holds it. */
export interface ScreenFigures {
  name: string
  lcp_p50_ms: number | null
  target_ms: number
  pass: boolean
}

/** Each screen's median paint against the target (`--figures-file`, and the table below). */
export function screenPaintFigures(screens: readonly ScreenPaint[], target = SCREEN_PAINT_TARGET_MS): ScreenFigures[] {
  return screens.map((screen) => {
    const p50 = median(screen.lcp)
    return { name: screen.name, lcp_p50_ms: p50, target_ms: target, pass: p50 !== null && p50 < target }
  })
}

/** One line per screen: its median and slowest paint against the target, and a last line counting the misses. */
export function formatScreenPaints(screens: readonly ScreenPaint[], target = SCREEN_PAINT_TARGET_MS): string {
  const ms = (value: number | null) => (value === null ? 'none' : value.toFixed(0))
  const lines = ['screen          path                     LCP p50 ms   slowest   target     result']
  const figures = screenPaintFigures(screens, target)
  screens.forEach((screen, i) => {
    const { lcp_p50_ms: p50, pass } = figures[i] ?? { lcp_p50_ms: null, pass: false }
    const slowest = screen.lcp.some((v) => v === null) ? null : Math.max(...screen.lcp.map((v) => v ?? 0))
    const path = screen.path.length > 24 ? `${screen.path.slice(0, 21)}...` : screen.path
    lines.push(
      `${screen.name.padEnd(15)} ${path.padEnd(24)} ${ms(p50).padStart(10)} ${ms(slowest).padStart(9)}   < ${String(target)} ms  ${pass ? '✓' : '✗'}`,
    )
  })
  const missed = figures.filter((f) => !f.pass).length
  lines.push(`${String(missed)} of ${String(screens.length)} screens missed the target.`)
  return lines.join('\n')
}
