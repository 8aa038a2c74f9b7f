import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { lazy, Suspense, useEffect, useMemo, useRef, useState, type RefObject, type SubmitEvent } from 'react'
import type { Lead, LeadPage } from '@leadline/shared/lead-schema'
import { Button, focusRing } from '../../components/ui/button'
import { EmptyState, Skeleton } from '../../components/ui/feedback'
import { TextField } from '../../components/ui/text-field'
import { cx } from '../../lib/cx'
import { useDocumentTitle } from '../../lib/document-title'
import { formatDateTime, formatRelative } from '../../lib/format'
import { isApiError } from '../../lib/api'
import { authQueries } from '../auth/auth-queries'
import { isTyping, shortcutOf } from '../tasks/inbox-keys'
import { ExportButton } from '../exports/export-button'
import {
  availableColumns,
  cellText,
  chosenColumns,
  NAME_COLUMN,
  sortOf,
  storeColumns,
  storedColumns,
  withSort,
  type LeadColumn,
} from './lead-columns'
import { leadQueries, LEADS_PER_PAGE, searchErrorOf, setupQueries } from './lead-queries'
import { isSummaryColumn, LeadSummaryCell, summaryLeadIds, useLeadSummaries } from './lead-summaries'
import type { LeadSearch } from './lead-search'
import { savedSearchQueries, useChangeView } from './saved-search-queries'
import { SaveViewDialog, SmartViewsNav, ViewActions } from './smart-views'
import type { BulkKind } from './bulk-actions'
import { NOTHING_SELECTED, selectedCount, type Selection } from './bulk-selection'

// The dialog (and React Aria's modal code) loads when first opened, keeping the list inside the first-route budget.
const NewLeadDialog = lazy(() => import('./lead-form').then((m) => ({ default: m.NewLeadDialog })))
const ColumnsDialog = lazy(() => import('./columns-dialog').then((m) => ({ default: m.ColumnsDialog })))
// The bulk bar shows once a row is picked, a job's progress once one is started: neither is in the first visit.
const BulkBar = lazy(() => import('./bulk-bar').then((m) => ({ default: m.BulkBar })))
const BulkJobStatus = lazy(() => import('./bulk-bar').then((m) => ({ default: m.BulkJobStatus })))
const EditLeadsDialog = lazy(() => import('./bulk-dialogs').then((m) => ({ default: m.EditLeadsDialog })))
const DeleteLeadsDialog = lazy(() => import('./bulk-dialogs').then((m) => ({ default: m.DeleteLeadsDialog })))

export function LeadsListPage({ search }: { search: LeadSearch }) {
  const { data: session } = useSuspenseQuery(authQueries.session())
  const views = useQuery(savedSearchQueries.list())
  // The open Smart View: its query is the search, unless the URL has one of its own.
  const view = useQuery({
    ...savedSearchQueries.one(search.smart_view ?? ''),
    enabled: search.smart_view !== undefined,
    retry: false,
    throwOnError: (error) => !isApiError(error, 404),
  })
  const openView = search.smart_view === undefined ? undefined : view.data
  const isViewGone = search.smart_view !== undefined && isApiError(view.error, 404)
  const query = search.query ?? openView?.query ?? undefined
  useDocumentTitle(openView === undefined ? 'Leads' : `${openView.name} · Leads`)
  // A search the API cannot parse is the search box's error, not the page's; any other failure with nothing to show
  // is the page's (as with useSuspenseQuery), and a failed background refresh keeps the list with a toast.
  const list = useQuery({
    ...leadQueries.list({ query, page: search.page }),
    enabled: search.smart_view === undefined || openView !== undefined,
    throwOnError: (error, q) => q.state.data === undefined && searchErrorOf(error) === undefined,
    retryOnMount: false,
  })
  const searchError = searchErrorOf(list.error)
  const navigate = useNavigate({ from: '/leads/' })
  const [isCreating, setCreating] = useState(false)
  const [isSavingView, setSavingView] = useState(false)
  const mayChangeView =
    openView !== undefined && (openView.user_id === session.user.id || (openView.is_shared && session.role === 'admin'))
  // The columns: the open view's, else those this browser keeps for it (or for all leads), else the default ones.
  const fields = useQuery(setupQueries.customFields('lead'))
  const available = availableColumns(fields.data ?? [])
  // Read from the browser's storage once a view; a choice made here since then stands over it.
  const stored = useMemo(() => storedColumns(search.smart_view), [search.smart_view])
  const [chosenHere, setChosenHere] = useState<{ view: string | undefined; ids: string[] }>()
  const fromView = openView?.selected_fields?.map((f) => f.id)
  const fromBrowser = chosenHere !== undefined && chosenHere.view === search.smart_view ? chosenHere.ids : stored
  const columns = chosenColumns(mayChangeView ? (fromView ?? fromBrowser) : (fromBrowser ?? fromView), available)
  const [isChoosingColumns, setChoosingColumns] = useState(false)
  // The rows picked, or every lead the search matches; a new search (or page) starts from nothing picked.
  const selectionKey = JSON.stringify([query, search.page, search.smart_view])
  const [picked, setPicked] = useState<{ key: string; selection: Selection }>()
  const selection = picked?.key === selectionKey ? picked.selection : NOTHING_SELECTED
  const select = (next: Selection) => {
    setPicked({ key: selectionKey, selection: next })
  }
  const [bulkDialog, setBulkDialog] = useState<BulkKind>()
  const [job, setJob] = useState<{ kind: BulkKind; id: string }>()
  const total = list.data?.total_results ?? 0
  const changeView = useChangeView()
  const applyColumns = (ids: string[]) => {
    if (openView !== undefined && mayChangeView) {
      changeView.mutate(
        { id: openView.id, selected_fields: ids.map((id) => ({ id })) },
        {
          onSuccess: () => {
            setChoosingColumns(false)
          },
        },
      )
      return
    }
    storeColumns(search.smart_view, ids)
    setChosenHere({ view: search.smart_view, ids })
    setChoosingColumns(false)
  }

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="flex flex-wrap items-baseline gap-3">
          <h1 className="text-2xl font-bold text-slate-900">{openView === undefined ? 'Leads' : openView.name}</h1>
          {list.data === undefined ? null : (
            <p className="text-sm text-slate-600" aria-live="polite">
              {list.data.total_results.toLocaleString('en-US')} {list.data.total_results === 1 ? 'lead' : 'leads'}
            </p>
          )}
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Link
            to="/leads/import"
            className={cx(
              'rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50',
              focusRing,
            )}
          >
            Import
          </Link>
          <Link
            to="/leads/duplicates"
            className={cx(
              'rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50',
              focusRing,
            )}
          >
            Potential duplicates
          </Link>
          <ExportButton subject={{ object: 'lead', query: query ?? '' }} title="Export leads" />
          <Button
            variant="primary"
            onPress={() => {
              setCreating(true)
            }}
          >
            New lead
          </Button>
        </div>
      </div>
      <SmartViewsNav views={views.data?.data ?? []} currentId={search.smart_view} />
      <div className="flex flex-wrap items-start gap-2">
        <LeadSearchBox
          key={query ?? ''}
          initial={query ?? ''}
          error={searchError}
          onSearch={(text) => {
            void navigate({ search: text === '' ? {} : { query: text } })
          }}
        />
        <Button
          onPress={() => {
            setSavingView(true)
          }}
        >
          Save as Smart View
        </Button>
        <Button
          onPress={() => {
            setChoosingColumns(true)
          }}
        >
          Columns
        </Button>
      </div>
      {openView !== undefined && mayChangeView ? (
        <ViewActions
          view={openView}
          onDeleted={() => {
            void navigate({ search: {} })
          }}
        />
      ) : null}
      {job === undefined ? null : (
        <Suspense fallback={null}>
          <BulkJobStatus
            key={job.id}
            kind={job.kind}
            id={job.id}
            onDismiss={() => {
              setJob(undefined)
            }}
          />
        </Suspense>
      )}
      {list.data === undefined || selectedCount(selection, total) === 0 ? null : (
        <Suspense fallback={null}>
          <BulkBar
            selection={selection}
            total={total}
            pageCount={list.data.data.length}
            onSelectAll={() => {
              select({ all: true })
            }}
            onClear={() => {
              select(NOTHING_SELECTED)
            }}
            onEdit={() => {
              setBulkDialog('edit')
            }}
            onDelete={() => {
              setBulkDialog('delete')
            }}
          />
        </Suspense>
      )}
      {isViewGone ? (
        <div className="rounded-lg border border-slate-200 bg-white">
          <EmptyState title="This Smart View is not there">
            It was deleted, or its owner stopped sharing it.{' '}
            <Link to="/leads" search={{}} className="font-medium text-indigo-700 hover:underline">
              Show every lead
            </Link>
            .
          </EmptyState>
        </div>
      ) : searchError !== undefined ? (
        <div className="rounded-lg border border-slate-200 bg-white">
          <EmptyState title="This search could not be run">
            Correct it above, or{' '}
            <Link to="/leads" className="font-medium text-indigo-700 hover:underline">
              show every lead
            </Link>
            .
          </EmptyState>
        </div>
      ) : list.data === undefined ? (
        <Skeleton className="h-64 w-full" />
      ) : (
        <LeadsTable
          page={list.data}
          search={{ ...search, query }}
          columns={columns}
          selection={selection}
          onSelect={select}
          onSort={(sorted) => {
            void navigate({ search: (prev) => ({ ...prev, query: sorted, page: undefined }) })
          }}
        />
      )}
      {isCreating ? (
        <Suspense fallback={null}>
          <NewLeadDialog isOpen onOpenChange={setCreating} />
        </Suspense>
      ) : null}
      {isChoosingColumns ? (
        <Suspense fallback={null}>
          <ColumnsDialog
            available={available}
            chosen={columns}
            isPending={changeView.isPending}
            error={changeView.error === null ? undefined : changeView.error.message}
            onCancel={() => {
              setChoosingColumns(false)
            }}
            onApply={applyColumns}
          />
        </Suspense>
      ) : null}
      {bulkDialog === undefined ? null : (
        <Suspense fallback={null}>
          {(() => {
            const Chosen = bulkDialog === 'edit' ? EditLeadsDialog : DeleteLeadsDialog
            return (
              <Chosen
                selection={selection}
                query={query}
                n={selectedCount(selection, total)}
                onClose={() => {
                  setBulkDialog(undefined)
                }}
                onStarted={(started) => {
                  setJob({ kind: bulkDialog, id: started.id })
                  setBulkDialog(undefined)
                  select(NOTHING_SELECTED)
                }}
              />
            )
          })()}
        </Suspense>
      )}
      {isSavingView ? (
        <SaveViewDialog
          isOpen
          onOpenChange={setSavingView}
          query={query}
          columns={columns.map((c) => c.id)}
          onSaved={(saved) => {
            void navigate({ search: { smart_view: saved.id } })
          }}
        />
      ) : null}
    </div>
  )
}

function LeadsTable({
  page: data,
  search,
  columns,
  selection,
  onSelect,
  onSort,
}: {
  page: LeadPage
  search: LeadSearch
  columns: LeadColumn[]
  selection: Selection
  onSelect: (selection: Selection) => void
  onSort: (query: string) => void
}) {
  const isPicked = (id: string) => selection.all || selection.ids.has(id)
  const pageIds = data.data.map((lead) => lead.id)
  const wholePage = pageIds.length > 0 && pageIds.every(isPicked)
  const pick = (id: string, on: boolean) => {
    const ids = new Set(selection.all ? pageIds : selection.ids)
    if (on) ids.add(id)
    else ids.delete(id)
    onSelect({ all: false, ids })
  }
  const navigate = useNavigate({ from: '/leads/' })
  const page = search.page ?? 1
  const first = (page - 1) * LEADS_PER_PAGE + 1
  const last = first + data.data.length - 1
  const lastPage = Math.max(1, Math.ceil(data.total_results / LEADS_PER_PAGE))
  // A link to a page past the end (the list shrank, or the URL was typed): say so and offer the way back.
  const isPastEnd = data.data.length === 0 && page > 1
  const toPage = (to: number) => (to > 1 ? to : undefined)
  const table = useRef<HTMLTableElement>(null)
  useRowKeys(table)
  const summaries = useLeadSummaries(summaryLeadIds(data.data, columns))

  return (
    <>
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
        {isPastEnd ? (
          <EmptyState title="No leads on this page">
            {data.total_results === 0 ? 'There are none to show. ' : `The last page is ${lastPage}. `}
            <Link
              to="/leads"
              search={(prev) => ({ ...prev, page: undefined })}
              className="font-medium text-indigo-700 hover:underline"
            >
              Go to page 1
            </Link>
          </EmptyState>
        ) : data.data.length === 0 ? (
          <EmptyState title={search.query === undefined ? 'No leads yet' : 'No leads match this search'}>
            {search.query === undefined
              ? 'Create the first one with “New lead”.'
              : 'Try fewer words, or a field such as name:acme or status:"potential".'}
          </EmptyState>
        ) : (
          <table ref={table} className="w-full text-left text-sm">
            <caption className="sr-only">Leads</caption>
            <thead className="border-b border-slate-200 bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase">
              <tr>
                <th scope="col" className="w-10 py-2.5 pl-4">
                  <input
                    type="checkbox"
                    aria-label="Select every lead on this page"
                    className="size-4 rounded border-slate-300 accent-indigo-600"
                    checked={wholePage}
                    onChange={(event) => {
                      onSelect(
                        event.target.checked ? { all: false, ids: new Set(pageIds) } : { all: false, ids: new Set() },
                      )
                    }}
                  />
                </th>
                {[NAME_COLUMN, ...columns].map((column) => {
                  const direction = column.sort === undefined ? undefined : sortOf(search.query ?? '', column.sort)
                  const key = column.sort
                  return (
                    <th
                      key={column.id}
                      scope="col"
                      className={cx('px-4 py-2.5', hiddenOnSmall(column.id))}
                      aria-sort={direction === undefined ? undefined : direction === 'asc' ? 'ascending' : 'descending'}
                    >
                      {key === undefined ? (
                        column.label
                      ) : (
                        <button
                          type="button"
                          className={cx('uppercase hover:text-slate-900', focusRing)}
                          onClick={() => {
                            onSort(withSort(search.query ?? '', key, direction === 'asc' ? 'desc' : 'asc'))
                          }}
                        >
                          {column.label}
                          <span aria-hidden="true">
                            {direction === 'asc' ? ' ▲' : direction === 'desc' ? ' ▼' : ''}
                          </span>
                        </button>
                      )}
                    </th>
                  )
                })}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {data.data.map((lead) => {
                const contact = lead.contacts[0]
                return (
                  <tr key={lead.id} className={isPicked(lead.id) ? 'bg-indigo-50/60' : 'hover:bg-slate-50'}>
                    <td className="py-2.5 pl-4">
                      <input
                        type="checkbox"
                        aria-label={`Select ${lead.display_name === '' ? 'Unnamed lead' : lead.display_name}`}
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
                        {lead.display_name === '' ? 'Unnamed lead' : lead.display_name}
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
            </tbody>
          </table>
        )}
      </div>
      <nav aria-label="Pages" className="flex items-center justify-between gap-3 text-sm text-slate-600">
        <p aria-live="polite">
          {data.total_results === 0
            ? '0 leads'
            : isPastEnd
              ? `${data.total_results} ${data.total_results === 1 ? 'lead' : 'leads'} in all`
              : `${first}–${last} of ${data.total_results} ${data.total_results === 1 ? 'lead' : 'leads'}`}
        </p>
        <div className="flex gap-2">
          <Button
            size="sm"
            isDisabled={page <= 1}
            onPress={() => {
              void navigate({ search: (prev) => ({ ...prev, page: toPage(Math.min(page - 1, lastPage)) }) })
            }}
          >
            Previous
          </Button>
          <Button
            size="sm"
            isDisabled={!data.has_more}
            onPress={() => {
              void navigate({ search: (prev) => ({ ...prev, page: page + 1 }) })
            }}
          >
            Next
          </Button>
        </div>
      </nav>
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

interface LeadSearchBoxProps {
  initial: string
  /** Why the API refused the search in the URL; shown while the box still holds that search. */
  error: string | undefined
  onSearch: (query: string) => void
}

function LeadSearchBox({ initial, error, onSearch }: LeadSearchBoxProps) {
  const [text, setText] = useState(initial)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    onSearch(text.trim())
  }
  return (
    <form role="search" onSubmit={submit} className="flex min-w-64 flex-1 items-start gap-2">
      {/* A plain textbox, not type=search: the query language is text, and the label is what tests find. */}
      <TextField
        label="Search leads"
        hideLabel
        value={text}
        onChange={setText}
        error={text === initial ? error : undefined}
        placeholder='Search leads: acme, status:"potential", email:@acme.com, created > "last week"'
        className="flex-1"
      />
      <Button type="submit">Search</Button>
    </form>
  )
}
