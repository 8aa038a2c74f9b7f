// @vitest-environment node
import { describe, expect, it } from 'vitest'
import { firstScreenRequests } from '@leadline/shared/first-screen-requests'
import { localDateIn } from '@leadline/shared/task-dates'
import type { AuthSession } from './features/auth/auth-queries'
import { leadFixture } from './lib/lead-fixture'
import { renderScreen, type ScreenToRender } from './server-render'
// The report's chart is a lazy part: in the BFF's one bundle it is there at once, here it is loaded ahead.
import './features/reports/report-chart'

// The BFF's server render, as the BFF runs it: in Node (no document), from the answers of the shared list alone.

const session: AuthSession = {
  user: { id: 'user_1', first_name: 'Alex', last_name: 'Admin', email: 'alex@example.com', display_name: 'Alex Admin' },
  organization: { id: 'orga_1', name: 'Acme Sales' },
  role: 'admin',
  time_zone: 'Asia/Tokyo',
}
/** The session's calendar date in its zone, as the BFF gives it to the shared list. */
const today = localDateIn(session.time_zone, new Date())
const viewer = { userId: session.user.id, organizationId: session.organization.id, today }

/** The leads list's answers, its page holding `names`. */
function leadsAnswers(names: readonly string[]): Record<string, unknown> {
  const [statuses, views, fields, page] = firstScreenRequests('/leads', new URLSearchParams(), viewer)
  const leads = names.map((name, at) => leadFixture({ id: `lead_${String(at)}`, name, display_name: name }))
  return {
    [statuses ?? '']: { data: [{ id: 'stat_1', label: 'Potential' }] },
    [views ?? '']: { data: [], has_more: false },
    [fields ?? '']: { data: [], has_more: false },
    [page ?? '']: { data: leads, has_more: false, total_results: leads.length },
  }
}

/** The screen's HTML, or '' with why it was not drawn. */
async function drawn(screen: ScreenToRender): Promise<string> {
  const result = await renderScreen(screen)
  return 'html' in result ? result.html : ''
}

describe('the server render', () => {
  it('draws the leads list from the page’s answers: the header, the heading and the rows', async () => {
    const html = await drawn({ url: '/leads', session, answers: leadsAnswers(['Bluebird Co', 'Cedar Ltd']) })
    expect(html).toContain('<h1')
    expect(html).toMatch(/>Leads<\/h1>/)
    expect(html).toContain('Bluebird Co')
    expect(html).toContain('Cedar Ltd')
    expect(html).toContain('Acme Sales')
  })

  it('writes no style attribute and no script: the page’s security policy refuses both', async () => {
    const names = Array.from({ length: 40 }, (_, at) => `Lead ${String(at)}`)
    const html = await drawn({ url: '/leads', session, answers: leadsAnswers(names) })
    expect(html).toContain('Lead 0')
    expect(html).not.toMatch(/\sstyle=/)
    expect(html).not.toContain('<script')
  })

  it('draws where a path that only redirects goes on to', async () => {
    const html = await drawn({ url: '/', session, answers: leadsAnswers(['Bluebird Co']) })
    expect(html).toMatch(/>Leads<\/h1>/)
  })

  it('draws nothing when a read the screen awaits is not among the answers', async () => {
    const page = firstScreenRequests('/leads', new URLSearchParams(), viewer).at(-1) ?? ''
    const answers = Object.fromEntries(Object.entries(leadsAnswers(['Bluebird Co'])).filter(([path]) => path !== page))
    expect(await renderScreen({ url: '/leads', session, answers })).toEqual({
      notDrawn: expect.stringContaining(`no answer for ${page}`) as unknown,
    })
    expect(await drawn({ url: '/reports', session, answers: {} })).toBe('')
  })

  it('draws this year’s report from its answers, and loading without its sums', async () => {
    const [pipelines = '', members = '', organization = '', all = '', won = ''] = firstScreenRequests(
      '/reports',
      new URLSearchParams(),
      viewer,
    )
    const month = `${today.slice(0, 4)}-03`
    const sums = (value: number) => ({
      total_results: 2,
      count_by_value_period: { one_time: 2, monthly: 0, annual: 0 },
      total_value_one_time: value,
      total_value_monthly: 0,
      total_value_annual: 0,
      total_value_annualized: value,
      expected_value_one_time: value / 2,
      expected_value_monthly: 0,
      expected_value_annual: 0,
      expected_value_annualized: value / 2,
    })
    const report = (value: number) => ({ ...sums(value), has_more: false, data: [{ ...sums(value), key: month }] })
    const answers = {
      [pipelines]: { data: [], has_more: false },
      [members]: { data: [], has_more: false },
      [organization]: { id: 'orga_1', currency: 'USD' },
      [all]: report(1_234_500),
      [won]: report(600_000),
    }
    const html = await drawn({ url: '/reports', session, answers })
    expect(html).toMatch(/>Reports<\/h1>/)
    expect(html).toContain(`March ${today.slice(0, 4)}`)
    expect(html).toContain('$12,345')
    // Without an answer for its sums, the report is drawn loading, as the browser first shows it: never as an error.
    const { [all]: _all, ...withoutSums } = answers
    const loading = await drawn({ url: '/reports', session, answers: withoutSums })
    expect(loading).toMatch(/>Reports<\/h1>/)
    expect(loading).not.toContain('$12,345')
    expect(loading).not.toContain('did not load')
  })

  it('keeps each page’s answers its own while several are drawn at once', async () => {
    const [first, second] = await Promise.all([
      renderScreen({ url: '/leads', session, answers: leadsAnswers(['Only In First']) }),
      renderScreen({ url: '/leads', session, answers: leadsAnswers(['Only In Second']) }),
    ])
    expect(JSON.stringify(first)).toContain('Only In First')
    expect(JSON.stringify(first)).not.toContain('Only In Second')
    expect(JSON.stringify(second)).toContain('Only In Second')
    expect(JSON.stringify(second)).not.toContain('Only In First')
  })

  it('writes times in the session’s zone', async () => {
    const lead = leadFixture({ id: 'lead_zone', name: 'Zoned', display_name: 'Zoned' })
    const paths = firstScreenRequests('/leads/lead_zone', new URLSearchParams(), viewer)
    const answers: Record<string, unknown> = {}
    for (const path of paths) answers[path] = path.endsWith('/lead/lead_zone/') ? lead : { data: [], has_more: false }
    const tokyo = await drawn({ url: '/leads/lead_zone', session, answers })
    const london = await drawn({
      url: '/leads/lead_zone',
      session: { ...session, time_zone: 'Europe/London' },
      answers,
    })
    // Created 2026-11-01 10:00 UTC: 7:00 PM in Tokyo, 10:00 AM in London.
    expect(tokyo).toContain('7:00 PM')
    expect(london).toContain('10:00 AM')
  })
})
