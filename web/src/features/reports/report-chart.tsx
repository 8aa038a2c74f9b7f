import { AxisBottom, AxisLeft } from '@visx/axis'
import { Group } from '@visx/group'
import { scaleBand, scaleLinear } from '@visx/scale'
import { Bar } from '@visx/shape'
import { Link } from '@tanstack/react-router'
import { formatMoney } from '@leadline/shared/money'
import { groupLabel, groupParam, groupTick, tickEvery, type ReportPage } from './report-groups'
import type { ReportSearch } from './report-search'

const WIDTH = 760
const HEIGHT = 280
const MARGIN = { top: 12, right: 12, bottom: 48, left: 88 }

interface Series {
  name: string
  /** How the bar's accessible name says what it counts: "won", "expected", … */
  word: string
  color: string
  valueOf: (key: string | null) => number
}

/**
 * Bars of annualized value per group, in the table's order. Where the report is not limited to one status type, two
 * bars per group: the won total beside the expected value (value × confidence) of every opportunity in it. Each bar
 * is a link to the group's opportunities, named for screen readers ("March 2026: $12,000 won").
 */
export function ReportChart({
  search,
  page,
  won,
  currency,
}: {
  search: ReportSearch
  page: ReportPage
  /** The same report limited to won opportunities; only when the report itself is not limited. */
  won: ReportPage | undefined
  currency: string
}) {
  const ofGroup = (p: ReportPage, field: 'total_value_annualized' | 'expected_value_annualized') => {
    const sums = new Map(p.data.map((g) => [g.key, g[field]]))
    return (key: string | null) => sums.get(key) ?? 0
  }
  const series: Series[] =
    won === undefined
      ? [
          {
            name: 'Total (annualized)',
            word: search.status === 'any' ? 'total' : search.status,
            color: '#4f46e5',
            valueOf: ofGroup(page, 'total_value_annualized'),
          },
        ]
      : [
          { name: 'Won (annualized)', word: 'won', color: '#4f46e5', valueOf: ofGroup(won, 'total_value_annualized') },
          {
            name: 'Expected (annualized)',
            word: 'expected',
            color: '#f59e0b',
            valueOf: ofGroup(page, 'expected_value_annualized'),
          },
        ]
  const keys = page.data.map((g) => groupParam(g.key))
  const x = scaleBand({ domain: keys, range: [0, WIDTH - MARGIN.left - MARGIN.right], padding: 0.2 })
  const inner = scaleBand({ domain: series.map((s) => s.name), range: [0, x.bandwidth()], padding: 0.1 })
  const max = Math.max(1, ...page.data.flatMap((g) => series.map((s) => s.valueOf(g.key))))
  const y = scaleLinear({ domain: [0, max], range: [HEIGHT - MARGIN.top - MARGIN.bottom, 0], nice: true })
  const labelOf = new Map(page.data.map((g) => [groupParam(g.key), groupLabel(search.by, g)]))
  const tickOf = new Map(page.data.map((g) => [groupParam(g.key), groupTick(search.by, g)]))
  const every = tickEvery(x.step(), Math.max(...[...tickOf.values()].map((t) => t.length)))
  return (
    <figure className="flex flex-col gap-2 rounded-lg border border-slate-200 bg-white p-4">
      <figcaption className="flex flex-wrap gap-4 text-sm text-slate-700">
        {series.map((s) => (
          <span key={s.name} className="flex items-center gap-1.5">
            {/* The colour as an SVG attribute: a style attribute would be an inline style, which the policy refuses. */}
            <svg aria-hidden="true" viewBox="0 0 12 12" className="size-3">
              <rect width="12" height="12" rx="2" fill={s.color} />
            </svg>
            {s.name}
          </span>
        ))}
      </figcaption>
      {/* Never drawn narrower than 640 px, where its 11 px labels still read 9 px: on a phone the chart scrolls. */}
      <div className="relative overflow-x-auto">
        <svg
          viewBox={`0 0 ${String(WIDTH)} ${String(HEIGHT)}`}
          className="h-auto w-full min-w-160"
          role="group"
          aria-label="Chart"
        >
          <Group left={MARGIN.left} top={MARGIN.top}>
            <AxisLeft
              scale={y}
              numTicks={5}
              tickFormat={(value) => formatMoney(Number(value), currency)}
              tickLabelProps={{ fill: '#475569', fontSize: 11 }}
              stroke="#cbd5e1"
              tickStroke="#cbd5e1"
            />
            <AxisBottom
              top={HEIGHT - MARGIN.top - MARGIN.bottom}
              scale={x}
              tickValues={keys.filter((_, i) => i % every === 0)}
              tickFormat={(key) => tickOf.get(key) ?? key}
              tickLabelProps={{ fill: '#475569', fontSize: 11 }}
              stroke="#cbd5e1"
              tickStroke="#cbd5e1"
            />
            {page.data.map((g) => {
              const key = groupParam(g.key)
              return (
                <Group key={key} left={x(key) ?? 0}>
                  {series.map((s) => {
                    const value = s.valueOf(g.key)
                    // A group with nothing still gets a sliver to click.
                    const height = Math.max(2, y(0) - y(value))
                    return (
                      <Link
                        key={s.name}
                        from="/reports/"
                        to="/reports"
                        search={(prev) => ({ ...prev, group: key })}
                        aria-label={`${labelOf.get(key) ?? key}: ${formatMoney(value, currency)} ${s.word}`}
                        className="outline-none focus-visible:[&>rect]:stroke-slate-900 focus-visible:[&>rect]:stroke-2"
                      >
                        <Bar
                          x={inner(s.name) ?? 0}
                          y={y(0) - height}
                          width={inner.bandwidth()}
                          height={height}
                          fill={s.color}
                          rx={2}
                        />
                      </Link>
                    )
                  })}
                </Group>
              )
            })}
          </Group>
        </svg>
      </div>
    </figure>
  )
}
