import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import type { AuditEntry } from '@leadline/shared/audit-log-schema'
import type { ListEnvelope } from '@leadline/shared/list'
import { API_BASE, api, type SearchParams } from '../../lib/api'
import { zonedInstant } from '../../lib/wall-clock'

// Loaded with the Audit log screen only (no route loader imports it), so none of it weighs on a first visit.

export const AUDIT_PAGE_SIZE = 50

/** The screen's filters: calendar days in the user's zone, an action, a person (user id); empty for none. */
export interface AuditFilters {
  action: string
  userId: string
  from: string
  to: string
}

export const NO_AUDIT_FILTERS: AuditFilters = { action: '', userId: '', from: '', to: '' }

/** The filters as `/audit_log/` takes them: the days as the instants they start and end at in the user's zone. */
export function auditParams(filters: AuditFilters): SearchParams {
  return {
    action: filters.action === '' ? undefined : filters.action,
    user_id: filters.userId === '' ? undefined : filters.userId,
    date_created__gte: filters.from === '' ? undefined : zonedInstant(filters.from, 0, 0).toISOString(),
    date_created__lt: filters.to === '' ? undefined : zonedInstant(filters.to, 24, 0).toISOString(),
  }
}

/** The CSV download's address, with the same filters (the BFF lets a download link through without the header). */
export function auditCsvUrl(filters: AuditFilters): string {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(auditParams(filters)))
    if (value !== undefined) query.set(key, String(value))
  const text = query.toString()
  return `${API_BASE}audit_log/csv/${text === '' ? '' : `?${text}`}`
}

export const auditLogQueries = {
  all: () => ['audit-log'] as const,
  page: (filters: AuditFilters, skip: number) =>
    queryOptions({
      queryKey: [...auditLogQueries.all(), filters, skip] as const,
      queryFn: ({ signal }) =>
        api.get<ListEnvelope<AuditEntry>>(
          'audit_log/',
          { ...auditParams(filters), _skip: skip, _limit: AUDIT_PAGE_SIZE },
          signal,
        ),
      placeholderData: keepPreviousData,
    }),
}
