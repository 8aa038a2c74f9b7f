import { queryOptions } from '@tanstack/react-query'
import type { ExportView } from '@leadline/shared/export-schema'
import { api } from '../../lib/api'

// Exports (decision 0052): a POST asks for one; GET /export/{id}/ is polled until it is done or failed.

/** How often an export still being made is asked about. */
export const EXPORT_POLL_MS = 1000

/** What is exported: leads a search finds (`POST /export/lead/`), or opportunities a list's filters find. */
export type ExportSubject =
  { object: 'lead'; query: string } | { object: 'opportunity'; params: Record<string, string> }

export type ExportFormat = 'csv' | 'json'
export type LeadExportType = 'leads' | 'contacts' | 'lead_opps'

export interface ExportChoice {
  format: ExportFormat
  type: LeadExportType
  /** The columns (CSV) or keys (JSON) to keep; undefined for all of them. */
  fields: string[] | undefined
}

export const exportQueries = {
  all: () => ['exports'] as const,
  detail: (id: string) =>
    queryOptions({
      queryKey: [...exportQueries.all(), 'detail', id],
      queryFn: () => api.get<ExportView>(`export/${id}/`),
      refetchInterval: (query) => (isFinished(query.state.data) ? false : EXPORT_POLL_MS),
      staleTime: 0,
    }),
}

export function isFinished(view: ExportView | undefined): boolean {
  return view?.status === 'done' || view?.status === 'error'
}

/** The request that asks for an export of the subject as chosen. */
export function exportRequest(subject: ExportSubject, choice: ExportChoice): { path: string; body: object } {
  const fields = choice.fields === undefined ? {} : { fields: choice.fields }
  if (subject.object === 'lead') {
    const query = subject.query.trim()
    return {
      path: 'export/lead/',
      body: { format: choice.format, type: choice.type, ...fields, ...(query === '' ? {} : { query }) },
    }
  }
  return { path: 'export/opportunity/', body: { format: choice.format, params: subject.params, ...fields } }
}

/** A list's filters as an export's `params`: the ones that are set. */
export function exportParams(filters: Record<string, string | undefined>): Record<string, string> {
  const params: Record<string, string> = {}
  for (const [key, value] of Object.entries(filters)) if (value !== undefined && value !== '') params[key] = value
  return params
}

/** An export's state in words: created, in progress, done or failed (with why). */
export function exportStateText(view: ExportView): string {
  switch (view.status) {
    case 'created':
      return 'Export created, waiting to start…'
    case 'started':
    case 'in_progress':
      return 'Export in progress…'
    case 'done':
      return `Export done: ${String(view.n_rows ?? 0)} ${view.n_rows === 1 ? 'row' : 'rows'}.`
    case 'error':
      return `Export failed: ${view.error ?? 'the file could not be made.'}`
  }
}
