import { useDroppable } from '@dnd-kit/core'
import { useInfiniteQuery } from '@tanstack/react-query'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useMemo, useRef } from 'react'
import { formatMoney } from '@leadline/shared/money'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { Button } from '../../components/ui/button'
import { ErrorState, Skeleton } from '../../components/ui/feedback'
import { saveErrorMessage } from '../../lib/api'
import type { BoardStatus, ColumnTotals } from './board-moves'
import type { BoardFilters } from './board-search'
import { OpportunityCard } from './opportunity-card'
import { opportunityQueries } from './opportunity-queries'
import { Button as AriaButton, Tooltip, TooltipTrigger } from 'react-aria-components'
import { cx } from '../../lib/cx'

/** A card's height before it is measured; the virtualizer corrects it once the card is on screen. */
const CARD_HEIGHT_ESTIMATE = 150
/** The next page is fetched when the last card rendered is this close to the last one loaded. */
const NEAR_END = 5

interface BoardColumnProps {
  status: BoardStatus
  statuses: readonly BoardStatus[]
  filters: BoardFilters
  currency: string
  today: string
  onMove: (opportunity: Opportunity, from: BoardStatus, to: BoardStatus) => void
}

/**
 * One status: its totals over every matching opportunity in it (from the API), then its cards, fetched a page at a
 * time as the column scrolls and rendered only where they are visible, so a column of thousands stays light.
 */
export function BoardColumn({ status, statuses, filters, currency, today, onMove }: BoardColumnProps) {
  const column = useInfiniteQuery(opportunityQueries.column(status.id, filters))
  const { setNodeRef, isOver } = useDroppable({ id: status.id })
  const headingId = `column-${status.id}`
  const totals = column.data?.pages[0]
  const cards = useMemo(() => column.data?.pages.flatMap((page) => page.data) ?? [], [column.data])
  const scroller = useRef<HTMLDivElement>(null)
  // The app is not built with the React Compiler, which alone could memoize the virtualizer's results stale.
  // eslint-disable-next-line react-hooks/incompatible-library -- read afresh on every render, as is meant
  const virtualizer = useVirtualizer({
    count: cards.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => CARD_HEIGHT_ESTIMATE,
    getItemKey: (index) => cards[index]?.id ?? index,
    gap: 8,
    overscan: 3,
  })
  const rendered = virtualizer.getVirtualItems()
  const lastRendered = rendered.at(-1)?.index ?? -1
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = column
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastRendered >= cards.length - NEAR_END) void fetchNextPage()
  }, [hasNextPage, isFetchingNextPage, fetchNextPage, lastRendered, cards.length])
  return (
    <section
      ref={setNodeRef}
      aria-labelledby={headingId}
      className={cx(
        'flex w-64 shrink-0 flex-col gap-2 rounded-lg border p-2',
        isOver ? 'border-indigo-400 bg-indigo-50' : 'border-slate-200 bg-slate-50',
      )}
    >
      <header className="flex flex-col gap-0.5 px-1">
        <h2 id={headingId} className="text-sm font-semibold text-slate-900">
          {status.label}
        </h2>
        {totals === undefined ? (
          <Skeleton className="h-4 w-32" />
        ) : (
          <ColumnSummary totals={totals} currency={currency} />
        )}
      </header>
      {column.isError ? (
        <ErrorState
          title="This column did not load"
          message={saveErrorMessage(column.error, 'lead_query')}
          onRetry={() => void column.refetch()}
        />
      ) : null}
      {column.isPending ? <Skeleton className="h-24" /> : null}
      {cards.length === 0 && column.isSuccess ? <p className="px-1 text-sm text-slate-500">No opportunities.</p> : null}
      <div ref={scroller} className="max-h-[calc(100vh-20rem)] min-h-0 overflow-y-auto">
        <ul aria-label={`Cards in ${status.label}`} className="relative" style={{ height: virtualizer.getTotalSize() }}>
          {rendered.map((item) => {
            const opportunity = cards[item.index]
            if (opportunity === undefined) return null
            return (
              <li
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                // Only some cards are in the DOM: their place in the whole column is said explicitly.
                aria-posinset={item.index + 1}
                aria-setsize={totals?.total_results ?? cards.length}
                className="absolute inset-x-0 top-0"
                style={{ transform: `translateY(${String(item.start)}px)` }}
              >
                <OpportunityCard
                  opportunity={opportunity}
                  status={status}
                  statuses={statuses}
                  today={today}
                  onMove={(to) => {
                    onMove(opportunity, status, to)
                  }}
                />
              </li>
            )
          })}
        </ul>
      </div>
      {hasNextPage ? (
        <Button
          size="sm"
          variant="quiet"
          aria-label={`Load more in ${status.label}`}
          isPending={isFetchingNextPage}
          onPress={() => void fetchNextPage()}
        >
          Load more
        </Button>
      ) : null}
    </section>
  )
}

function ColumnSummary({ totals, currency }: { totals: ColumnTotals; currency: string }) {
  const count = totals.total_results
  const breakdown = [
    `One-time ${formatMoney(totals.total_value_one_time, currency)}`,
    `monthly ${formatMoney(totals.total_value_monthly, currency)}`,
    `annual ${formatMoney(totals.total_value_annual, currency)}`,
  ].join(', ')
  return (
    <p className="flex flex-wrap gap-x-2 text-xs text-slate-600">
      <span>
        {count.toLocaleString('en-US')} {count === 1 ? 'opportunity' : 'opportunities'}
      </span>
      {/* The breakdown shows on hover and on keyboard focus alike, so the sum is a focusable trigger. */}
      <TooltipTrigger delay={300}>
        <AriaButton className="cursor-help rounded underline decoration-dotted underline-offset-2 outline-none focus-visible:ring-2 focus-visible:ring-indigo-500">
          {formatMoney(totals.total_value_annualized, currency)} annualized
        </AriaButton>
        <Tooltip placement="bottom" className="rounded bg-slate-900 px-2 py-1 text-xs text-white shadow">
          {breakdown}
        </Tooltip>
      </TooltipTrigger>
      <span>{formatMoney(totals.expected_value_annualized, currency)} expected</span>
    </p>
  )
}
