import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useEffect } from 'react'
import type { ImportView } from '@leadline/shared/import-schema'
import { focusRing } from '../../components/ui/button'
import { QueryErrorState, Skeleton } from '../../components/ui/feedback'
import { cx } from '../../lib/cx'
import { useDocumentTitle } from '../../lib/document-title'
import { leadQueries } from '../leads/lead-queries'
import { importQueries } from './import-queries'
import { ImportRun } from './import-run'
import { ImportSetup } from './import-setup'
import { ImportUpload } from './import-upload'

/** Leads → Import: upload a CSV, map its columns, choose the duplicate rule, check it, run it (and undo it). */
export function ImportWizardPage({ id }: { id: string | undefined }) {
  useDocumentTitle('Import leads')
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const show = (view: ImportView) => {
    queryClient.setQueryData(importQueries.detail(view.id).queryKey, view)
  }
  return (
    <div className="flex max-w-5xl flex-col gap-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold text-slate-900">Import leads</h1>
        <Link to="/leads" className={cx('rounded text-sm font-medium text-indigo-700 hover:underline', focusRing)}>
          Back to leads
        </Link>
      </div>
      {id === undefined ? (
        <ImportUpload
          onUploaded={(view) => {
            show(view)
            void navigate({ to: '/leads/import', search: { id: view.id } })
          }}
        />
      ) : (
        <ImportSteps id={id} onChange={show} />
      )}
    </div>
  )
}

function ImportSteps({ id, onChange }: { id: string; onChange: (view: ImportView) => void }) {
  const query = useQuery(importQueries.detail(id))
  const queryClient = useQueryClient()
  const status = query.data?.status
  // What an import (or its undo) changed shows in the leads list when it is over.
  useEffect(() => {
    if (status === 'done' || status === 'undone') void queryClient.invalidateQueries({ queryKey: leadQueries.all() })
  }, [status, queryClient])

  if (query.isPending) return <Skeleton className="h-64 w-full" />
  if (query.isError) return <QueryErrorState title="The import did not load" query={query} />
  const view = query.data
  const started = !['uploaded', 'checking', 'checked'].includes(view.status)
  return (
    <>
      <p className="text-sm text-slate-700">
        {view.filename}: {view.n_rows.toLocaleString('en-US')} rows, {view.columns.length} columns.{' '}
        <Link to="/leads/import" className={cx('rounded font-medium text-indigo-700 hover:underline', focusRing)}>
          Import another file
        </Link>
      </p>
      {started ? <ImportRun view={view} onChange={onChange} /> : <ImportSetup view={view} onChange={onChange} />}
    </>
  )
}
