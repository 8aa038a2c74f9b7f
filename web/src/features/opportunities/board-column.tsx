import { useDroppable } from '@dnd-kit/core'
import { useInfiniteQuery } from '@tanstack/react-query'
import { formatMoney } from '@leadline/shared/money'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { Button } from '../../components/ui/button'
import { ErrorState, Skeleton } from '../../components/ui/feedback'
import type { BoardStatus, ColumnTotals } from './board-moves'
import { OpportunityCard } from './opportunity-card'
import { opportunityQueries } from './opportunity-queries'
import { Button as AriaButton, Tooltip, TooltipTrigger } from 'react-aria-components'
import { twMerge } from 'tailwind-merge'

interface BoardColumnProps {
  status: BoardStatus
  statuses: readonly BoardStatus[]
  currency: string
  today: string
  onMove: (opportunity: Opportunity, from: BoardStatus, to: BoardStatus) => void
}

/** One status: its totals over every opportunity in it (from the API), then its cards a page at a time. */
export function BoardColumn({ status, statuses, currency, today, onMove }: BoardColumnProps) {
  const column = useInfiniteQuery(opportunityQueries.column(status.id))
  const { setNodeRef, isOver } = useDroppable({ id: status.id })
  const headingId = `column-${status.id}`
  const totals = column.data?.pages[0]
  const cards = column.data?.pages.flatMap((page) => page.data) ?? []
  return (
    <section
      ref={setNodeRef}
      aria-labelledby={headingId}
      className={twMerge(
        'flex w-64 shrink-0 flex-col gap-2 rounded-lg border border-slate-200 bg-slate-50 p-2',
        isOver && 'border-indigo-400 bg-indigo-50',
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
        <ErrorState title="This column did not load" message={column.error.message}>
          <Button size="sm" onPress={() => void column.refetch()}>
            Try again
          </Button>
        </ErrorState>
      ) : null}
      {column.isPending ? <Skeleton className="h-24" /> : null}
      {cards.length === 0 && column.isSuccess ? <p className="px-1 text-sm text-slate-500">No opportunities.</p> : null}
      <ul className="flex flex-col gap-2">
        {cards.map((opportunity) => (
          <li key={opportunity.id}>
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
        ))}
      </ul>
      {column.hasNextPage ? (
        <Button
          size="sm"
          variant="quiet"
          aria-label={`Load more in ${status.label}`}
          isPending={column.isFetchingNextPage}
          onPress={() => void column.fetchNextPage()}
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
        {count} {count === 1 ? 'opportunity' : 'opportunities'}
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
