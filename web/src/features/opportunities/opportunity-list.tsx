import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import {
  createColumnHelper,
  rowSortingFeature,
  tableFeatures,
  useTable,
  type SortingState,
  type Updater,
} from '@tanstack/react-table'
import { useMemo } from 'react'
import { formatMoney } from '@leadline/shared/money'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import type { Pipeline } from '@leadline/shared/pipeline-schema'
import { Button, focusRing } from '../../components/ui/button'
import { EmptyState, ErrorState, Skeleton } from '../../components/ui/feedback'
import { api, saveErrorMessage } from '../../lib/api'
import { formatCalendarDate } from '../../lib/format'
import { ExportButton } from '../exports/export-button'
import { exportParams } from '../exports/export-queries'
import type { OpportunityColumnPage } from './board-moves'
import type { BoardFilters } from './board-search'
import { listsKey } from './opportunity-move'
import { cx } from '../../lib/cx'

// The list view: the board's filtered opportunities as a table. The API sorts and pages; the table only lays out.

const ROWS_PER_PAGE = 50

/** The pipeline's opportunities under the filters, in the order asked for; kept here, out of the route's loader. */
function listQuery(pipelineId: string, filters: BoardFilters, sort: string | undefined) {
  return infiniteQueryOptions({
    queryKey: [...listsKey, pipelineId, filters, sort],
    queryFn: ({ pageParam }) =>
      api.get<OpportunityColumnPage>('opportunity/', {
        pipeline_id: pipelineId,
        ...filters,
        _order_by: sort,
        _limit: ROWS_PER_PAGE,
        _skip: pageParam,
      }),
    initialPageParam: 0,
    getNextPageParam: (last, pages) =>
      last.has_more ? pages.reduce((sum, page) => sum + page.data.length, 0) : undefined,
  })
}

const features = tableFeatures({ rowSortingFeature })
const helper = createColumnHelper<typeof features, Opportunity>()
const noRows: Opportunity[] = []

/** Column ids are the API's `_order_by` fields, so the sorting state is the request's order as it is. */
function columnsIn(currency: string) {
  return helper.columns([
    helper.accessor((o) => o.lead_name, {
      id: 'lead_name',
      header: 'Lead',
      cell: ({ row }) => (
        <Link
          to="/leads/$leadId"
          params={{ leadId: row.original.lead_id }}
          className={cx('font-medium text-indigo-700 hover:underline', focusRing)}
        >
          {row.original.lead_name ?? 'Unnamed lead'}
        </Link>
      ),
    }),
    helper.accessor((o) => o.status_label, { id: 'status', header: 'Status', enableSorting: false }),
    helper.accessor((o) => o.value_formatted, {
      id: 'value',
      header: 'Value',
      cell: ({ getValue }) => getValue() ?? '—',
    }),
    helper.accessor((o) => o.annualized_value, {
      id: 'annualized_value',
      header: 'Annualized',
      cell: ({ getValue }) => formatMoney(getValue() ?? 0, currency),
    }),
    helper.accessor((o) => o.confidence, {
      id: 'confidence',
      header: 'Confidence',
      cell: ({ getValue }) => `${String(getValue())}%`,
    }),
    helper.accessor((o) => o.user_name, {
      id: 'user_name',
      header: 'Owner',
      cell: ({ getValue }) => getValue() ?? '—',
    }),
    helper.accessor((o) => o.date_won, {
      id: 'date_won',
      header: 'Close date',
      cell: ({ getValue }) => {
        const day = getValue()
        return day === null ? '—' : formatCalendarDate(day)
      },
    }),
  ])
}

/** `-value` ⇄ `[{ id: 'value', desc: true }]`. */
function sortingOf(sort: string | undefined): SortingState {
  return sort === undefined ? [] : [{ id: sort.replace(/^-/, ''), desc: sort.startsWith('-') }]
}

interface OpportunityListProps {
  pipeline: Pipeline
  filters: BoardFilters
  sort: string | undefined
  currency: string
}

/** The pipeline's opportunities under the board's filters, sortable by the headers, with the API's totals. */
export function OpportunityList({ pipeline, filters, sort, currency }: OpportunityListProps) {
  const list = useInfiniteQuery(listQuery(pipeline.id, filters, sort))
  const navigate = useNavigate({ from: '/opportunities/' })
  const columns = useMemo(() => columnsIn(currency), [currency])
  const rows = useMemo(() => list.data?.pages.flatMap((page) => page.data) ?? noRows, [list.data])
  const sorting = useMemo(() => sortingOf(sort), [sort])
  const onSortingChange = (updater: Updater<SortingState>) => {
    const [next] = typeof updater === 'function' ? updater(sorting) : updater
    void navigate({
      search: (prev) => ({ ...prev, sort: next === undefined ? undefined : `${next.desc ? '-' : ''}${next.id}` }),
    })
  }
  const table = useTable({
    features,
    columns,
    data: rows,
    getRowId: (row) => row.id,
    state: { sorting },
    onSortingChange,
    manualSorting: true,
    enableMultiSort: false,
    sortDescFirst: false,
  })
  const totals = list.data?.pages[0]
  if (list.isError)
    return (
      <ErrorState
        title="The list did not load"
        message={saveErrorMessage(list.error, 'lead_query')}
        onRetry={() => void list.refetch()}
      />
    )
  if (totals === undefined) return <Skeleton className="h-64 w-full" />
  const count = totals.total_results
  return (
    <div className="flex flex-col gap-3">
      <ExportButton
        subject={{ object: 'opportunity', params: exportParams({ pipeline_id: pipeline.id, ...filters }) }}
        title="Export opportunities"
      />
      <div className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white">
        {count === 0 ? (
          <EmptyState title="No opportunities match these filters" />
        ) : (
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Opportunities in {pipeline.name}</caption>
            <thead className="border-b border-slate-200 bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase">
              {table.getHeaderGroups().map((group) => (
                <tr key={group.id}>
                  {group.headers.map((header) => {
                    const sorted = header.column.getIsSorted()
                    const canSort = header.column.getCanSort()
                    return (
                      <th
                        key={header.id}
                        scope="col"
                        aria-sort={
                          sorted === 'asc'
                            ? 'ascending'
                            : sorted === 'desc'
                              ? 'descending'
                              : canSort
                                ? 'none'
                                : undefined
                        }
                        className="px-4 py-2.5 whitespace-nowrap"
                      >
                        {canSort ? (
                          <button
                            type="button"
                            onClick={header.column.getToggleSortingHandler()}
                            className={cx('inline-flex items-center gap-1 rounded uppercase', focusRing)}
                          >
                            <table.FlexRender header={header} />
                            <span aria-hidden="true">{sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}</span>
                          </button>
                        ) : (
                          <table.FlexRender header={header} />
                        )}
                      </th>
                    )
                  })}
                </tr>
              ))}
            </thead>
            <tbody className="divide-y divide-slate-100">
              {table.getRowModel().rows.map((row) => (
                <tr key={row.id} className="hover:bg-slate-50">
                  {row.getAllCells().map((cell) => (
                    <td key={cell.id} className="px-4 py-2.5 whitespace-nowrap text-slate-700">
                      <table.FlexRender cell={cell} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
            <tfoot className="border-t-2 border-slate-200 bg-slate-50 font-medium text-slate-900">
              <tr>
                <th scope="row" className="px-4 py-2.5 text-left whitespace-nowrap">
                  Totals: {count.toLocaleString('en-US')} {count === 1 ? 'opportunity' : 'opportunities'}
                </th>
                <td colSpan={2} />
                <td className="px-4 py-2.5 whitespace-nowrap">
                  {formatMoney(totals.total_value_annualized, currency)}
                </td>
                <td colSpan={3} className="px-4 py-2.5 whitespace-nowrap">
                  {formatMoney(totals.expected_value_annualized, currency)} expected
                </td>
              </tr>
            </tfoot>
          </table>
        )}
      </div>
      <div className="flex items-center justify-between gap-3 text-sm text-slate-600">
        <p aria-live="polite">
          Showing {rows.length.toLocaleString('en-US')} of {count.toLocaleString('en-US')}
        </p>
        {list.hasNextPage ? (
          <Button size="sm" isPending={list.isFetchingNextPage} onPress={() => void list.fetchNextPage()}>
            Load more opportunities
          </Button>
        ) : null}
      </div>
    </div>
  )
}
