import { Link } from '@tanstack/react-router'
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react'
import type { Lead } from '@leadline/shared/lead-schema'
import { Button, focusRing } from '../../components/ui/button'
import { EmptyState } from '../../components/ui/feedback'
import { cx } from '../../lib/cx'
import { formatDateTime, formatRelative } from '../../lib/format'
import { isTyping, shortcutOf } from '../tasks/inbox-keys'
import { cellText, NAME_COLUMN, sortOf, withSort, type LeadColumn } from './lead-columns'
import { LEADS_PER_PAGE } from '@leadline/shared/first-screen-requests'
import { isSummaryColumn, LeadSummaryCell, summaryLeadIds, useLeadSummaries } from './lead-summaries'
import type { Selection } from './bulk-selection'

// The leads list's table, loaded with the list's first page: rows come a page at a time as one scrolls (or presses
// Load more leads), and only those near the screen are in the document (TanStack Virtual, against the window's
// scroll), so 100,000 results scroll as smoothly as 50. The table says how many rows it has in all (aria-rowcount).

/** How far below the screen the next page is asked for, in rows. */
const AHEAD = 15

export interface LeadsTableProps {
  /** The rows loaded so far, in the list's order. */
  rows: Lead[]
  total: number
  query: string | undefined
  hasMore: boolean
  isLoadingMore: boolean
  onLoadMore: () => void
  columns: LeadColumn[]
  selection: Selection
  onSelect: (selection: Selection) => void
  onSort: (query: string) => void
}

/** A laptop's window: what the server draws rows for. */
const FIRST_RENDER_WINDOW = { width: 1280, height: 800 }

export function LeadsTable({
  rows,
  total,
  query,
  hasMore,
  isLoadingMore,
  onLoadMore,
  columns,
  selection,
  onSelect,
  onSort,
}: LeadsTableProps) {
  const isPicked = (id: string) => selection.all || selection.ids.has(id)
  const loadedIds = rows.map((lead) => lead.id)
  const allLoaded = loadedIds.length > 0 && loadedIds.every(isPicked)
  const pick = (id: string, on: boolean) => {
    const ids = new Set(selection.all ? loadedIds : selection.ids)
    if (on) ids.add(id)
    else ids.delete(id)
    onSelect({ all: false, ids })
  }
  const table = useRef<HTMLTableElement>(null)
  const body = useRef<HTMLTableSectionElement>(null)
  useRowKeys(table)
  // Where the rows start on the page: the virtualizer measures the window's scroll from there. (The bulk bar or a
  // job's progress, shown later, moves the table down by less than the 10 rows drawn beyond the screen.)
  const [margin, setMargin] = useState(0)
  useLayoutEffect(() => {
    setMargin((body.current?.getBoundingClientRect().top ?? 0) + window.scrollY)
  }, [])
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    // The rows a render without a window (the BFF's server render) draws; a browser measures its own window at once.
    initialRect: FIRST_RENDER_WINDOW,
    estimateSize: () => 45,
    overscan: 10,
    scrollMargin: margin,
  })
  const items = virtualizer.getVirtualItems()
  const lastShown = items.at(-1)?.index ?? -1
  useEffect(() => {
    if (hasMore && !isLoadingMore && lastShown >= rows.length - AHEAD) onLoadMore()
  }, [hasMore, isLoadingMore, lastShown, rows.length, onLoadMore])
  // Last activity is asked for the pages (of the list's loading) the rows on screen are in, so that scrolling within
  // them asks nothing again: at most two pages, the endpoint's 100 leads.
  const from = Math.floor((items[0]?.index ?? 0) / LEADS_PER_PAGE) * LEADS_PER_PAGE
  const to = Math.min(from + 2 * LEADS_PER_PAGE, Math.ceil((lastShown + 1) / LEADS_PER_PAGE) * LEADS_PER_PAGE)
  const summaries = useLeadSummaries(summaryLeadIds(rows.slice(from, to), columns))
  const shown = [NAME_COLUMN, ...columns]
  const before = (items[0]?.start ?? margin) - margin
  const after = virtualizer.getTotalSize() - ((items.at(-1)?.end ?? margin) - margin)

  if (rows.length === 0) {
    return (
      <div className="rounded-lg border border-slate-200 bg-white">
        <EmptyState title={query === undefined ? 'No leads yet' : 'No leads match this search'}>
          {query === undefined
            ? 'Create the first one with “New lead”.'
            : 'Try fewer words, or a field such as name:acme or status:"potential".'}
        </EmptyState>
      </div>
    )
  }
  return (
    <>
      <div className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white">
        <table ref={table} className="w-full text-left text-sm" aria-rowcount={total + 1}>
          <caption className="sr-only">Leads</caption>
          <thead className="border-b border-slate-200 bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase">
            <tr aria-rowindex={1}>
              <th scope="col" className="w-10 py-2.5 pl-4">
                <input
                  type="checkbox"
                  aria-label="Select every loaded lead"
                  className="size-4 rounded border-slate-300 accent-indigo-600"
                  checked={allLoaded}
                  onChange={(event) => {
                    onSelect({ all: false, ids: new Set(event.target.checked ? loadedIds : []) })
                  }}
                />
              </th>
              {shown.map((column) => {
                const direction = sortOf(query ?? '', column.sort)
                return (
                  <th
                    key={column.id}
                    scope="col"
                    className={cx('px-4 py-2.5', hiddenOnSmall(column.id))}
                    aria-sort={direction === undefined ? undefined : direction === 'asc' ? 'ascending' : 'descending'}
                  >
                    <button
                      type="button"
                      className={cx('uppercase hover:text-slate-900', focusRing)}
                      onClick={() => {
                        onSort(withSort(query ?? '', column.sort, direction === 'asc' ? 'desc' : 'asc'))
                      }}
                    >
                      {column.label}
                      <span aria-hidden="true">{direction === 'asc' ? ' ▲' : direction === 'desc' ? ' ▼' : ''}</span>
                    </button>
                  </th>
                )
              })}
            </tr>
          </thead>
          <tbody ref={body} className="divide-y divide-slate-100">
            {before > 0 ? (
              <tr aria-hidden="true">
                <td colSpan={shown.length + 1} style={{ height: before }} />
              </tr>
            ) : null}
            {items.map((item) => {
              const lead = rows[item.index]
              if (lead === undefined) return null
              const contact = lead.contacts[0]
              const name = lead.display_name === '' ? 'Unnamed lead' : lead.display_name
              return (
                <tr
                  key={lead.id}
                  data-index={item.index}
                  ref={virtualizer.measureElement}
                  aria-rowindex={item.index + 2}
                  className={isPicked(lead.id) ? 'bg-indigo-50/60' : 'hover:bg-slate-50'}
                >
                  <td className="py-2.5 pl-4">
                    <input
                      type="checkbox"
                      aria-label={`Select ${name}`}
                      className="size-4 rounded border-slate-300 accent-indigo-600"
                      checked={isPicked(lead.id)}
                      onChange={(event) => {
                        pick(lead.id, event.target.checked)
                      }}
                    />
                  </td>
                  <td className="px-4 py-2.5">
                    <Link
                      to="/leads/$leadId"
                      params={{ leadId: lead.id }}
                      className="font-medium text-indigo-700 hover:underline"
                    >
                      {name}
                    </Link>
                    {/* A phone has no room for the contact column: its name goes under the lead's. */}
                    {contact === undefined ? null : (
                      <span className="block text-xs text-slate-500 sm:hidden">{contact.display_name}</span>
                    )}
                  </td>
                  {columns.map((column) => (
                    <td key={column.id} className={cx('px-4 py-2.5 text-slate-700', hiddenOnSmall(column.id))}>
                      {isSummaryColumn(column) ? (
                        <LeadSummaryCell lead={lead} column={column} summaries={summaries} />
                      ) : (
                        <LeadCell lead={lead} column={column} />
                      )}
                    </td>
                  ))}
                </tr>
              )
            })}
            {after > 0 ? (
              <tr aria-hidden="true">
                <td colSpan={shown.length + 1} style={{ height: after }} />
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      <div className="flex items-center justify-between gap-3 text-sm text-slate-600">
        <p aria-live="polite">
          {`Showing ${rows.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${total === 1 ? 'lead' : 'leads'}`}
        </p>
        {hasMore ? (
          <Button size="sm" isPending={isLoadingMore} onPress={onLoadMore}>
            Load more leads
          </Button>
        ) : null}
      </div>
    </>
  )
}

/**
 * `j` and `k` move the focus to the next and previous lead's link, as in the inbox; `Enter` on it opens the lead (a
 * link's own key). Never while typing in a field or with a dialog open.
 */
function useRowKeys(table: RefObject<HTMLTableElement | null>) {
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return
      if (document.querySelector('[role="dialog"]') !== null) return
      const shortcut = shortcutOf(event.key, false)
      if (shortcut !== 'next' && shortcut !== 'previous') return
      const links = [...(table.current?.querySelectorAll<HTMLAnchorElement>('tbody a[href]') ?? [])]
      if (links.length === 0) return
      event.preventDefault()
      const at = links.findIndex((link) => link === document.activeElement)
      const next =
        shortcut === 'next'
          ? links[at === -1 ? 0 : Math.min(at + 1, links.length - 1)]
          : links[at === -1 ? links.length - 1 : Math.max(at - 1, 0)]
      next?.focus()
      next?.scrollIntoView({ block: 'nearest' })
    }
    document.addEventListener('keydown', listener)
    return () => {
      document.removeEventListener('keydown', listener)
    }
  }, [table])
}

/** Columns a phone has no room for (the contact's name shows under the lead's). */
function hiddenOnSmall(id: string): string {
  return id === 'contact' ? 'hidden sm:table-cell' : id === 'date_updated' ? 'hidden md:table-cell' : ''
}

function LeadCell({ lead, column }: { lead: Lead; column: LeadColumn }) {
  const contact = lead.contacts[0]
  if (column.id === 'status') {
    return (
      <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-slate-700">
        {lead.status_label}
      </span>
    )
  }
  if (column.id === 'contact') {
    if (contact === undefined) return <span className="text-slate-400">—</span>
    return (
      <>
        {contact.display_name}
        {contact.emails[0] === undefined ? null : (
          <span className="block text-xs text-slate-500">{contact.emails[0].email}</span>
        )}
      </>
    )
  }
  if (column.id === 'date_updated' || column.id === 'date_created') {
    const at = column.id === 'date_updated' ? lead.date_updated : lead.date_created
    return (
      <time dateTime={at} title={formatDateTime(at)} className="whitespace-nowrap">
        {column.id === 'date_updated' ? formatRelative(at) : formatDateTime(at)}
      </time>
    )
  }
  const text = cellText(lead, column)
  return text === '' ? <span className="text-slate-400">—</span> : <span className="line-clamp-2">{text}</span>
}
