import { useInfiniteQuery, useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { lazy, Suspense, useCallback, useMemo, useState, type SubmitEvent } from 'react'
import { Button, focusRing } from '../../components/ui/button'
import { EmptyState, Skeleton } from '../../components/ui/feedback'
import { TextField } from '../../components/ui/text-field'
import { cx } from '../../lib/cx'
import { useDocumentTitle } from '../../lib/document-title'
import { isApiError } from '../../lib/api'
import { authQueries } from '../auth/auth-queries'
import { ExportButton } from '../exports/export-button'
import { availableColumns, chosenColumns, storeColumns, storedColumns } from './lead-columns'
import { leadQueries, searchErrorOf, setupQueries } from './lead-queries'
import type { LeadSearch } from './lead-search'
import { savedSearchQueries, useChangeView } from './saved-search-queries'
import { SaveViewDialog, SmartViewsNav, ViewActions } from './smart-views'
import type { BulkKind } from './bulk-actions'
import { NOTHING_SELECTED, selectedCount, type Selection } from './bulk-selection'
import { loadLeadsTable } from './leads-table-loader'

// The dialog (and React Aria's modal code) loads when first opened, keeping the list inside the first-route budget.
const NewLeadDialog = lazy(() => import('./lead-form').then((m) => ({ default: m.NewLeadDialog })))
const ColumnsDialog = lazy(() => import('./columns-dialog').then((m) => ({ default: m.ColumnsDialog })))
// The bulk bar shows once a row is picked, a job's progress once one is started: neither is in the first visit.
// The table (and TanStack Virtual) loads beside the list's first page: the route's loader starts both at once.
const LeadsTable = lazy(() => loadLeadsTable().then((m) => ({ default: m.LeadsTable })))
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
  const list = useInfiniteQuery({
    ...leadQueries.list(query),
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
  const selectionKey = JSON.stringify([query, search.smart_view])
  const [picked, setPicked] = useState<{ key: string; selection: Selection }>()
  const selection = picked?.key === selectionKey ? picked.selection : NOTHING_SELECTED
  const select = (next: Selection) => {
    setPicked({ key: selectionKey, selection: next })
  }
  const [bulkDialog, setBulkDialog] = useState<BulkKind>()
  const [job, setJob] = useState<{ kind: BulkKind; id: string }>()
  const rows = useMemo(() => list.data?.pages.flatMap((page) => page.data) ?? [], [list.data])
  const total = list.data?.pages[0]?.total_results ?? 0
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage()
  }, [hasNextPage, isFetchingNextPage, fetchNextPage])
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
              {total.toLocaleString('en-US')} {total === 1 ? 'lead' : 'leads'}
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
            pageCount={rows.length}
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
        <Suspense fallback={<Skeleton className="h-64 w-full" />}>
          <LeadsTable
            rows={rows}
            total={total}
            query={query}
            hasMore={hasNextPage}
            isLoadingMore={isFetchingNextPage}
            onLoadMore={loadMore}
            columns={columns}
            selection={selection}
            onSelect={select}
            onSort={(sorted) => {
              void navigate({ search: (prev) => ({ ...prev, query: sorted }) })
            }}
          />
        </Suspense>
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
