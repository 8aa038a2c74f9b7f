import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { AUDIT_ACTIONS, type AuditEntry } from '@leadline/shared/audit-log-schema'
import { Button } from '../../components/ui/button'
import { DateRangeFields } from '../../components/ui/date-range-fields'
import { SelectField } from '../../components/ui/select-field'
import { formatDateTime } from '../../lib/format'
import { AUDIT_PAGE_SIZE, auditCsvUrl, auditLogQueries, NO_AUDIT_FILTERS, type AuditFilters } from './audit-log-queries'
import { settingsPage, SettingsScreen } from './settings-layout'
import { SettingsTable } from './settings-table'
import { usersQueries } from './users-queries'

const cell = 'px-3 py-2 align-top'

/** `api_key_created` → `API key created`: an action as the screen says it. */
export function actionLabel(action: string): string {
  const words = action.replaceAll('_', ' ').replace(/^api key/, 'API key')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

const ACTION_OPTIONS = AUDIT_ACTIONS.map((action) => ({ value: action, label: actionLabel(action) }))

/**
 * Who did it: their name, else their email; for a failed sign-in, the email tried; for a change made with the
 * `leadline` command on the server, which no member is known to have made, the command.
 */
function actorOf(entry: AuditEntry): string {
  if (entry.action === 'sign_in_failed') return entry.actor_email ?? 'Unknown'
  const source = entry.details.source
  if (entry.user_id === null && typeof source === 'string') return `Server: ${source}`
  return entry.actor_name ?? entry.actor_email ?? entry.user_id ?? 'Unknown'
}

/** What it was done to: the object's kind and id, with what the entry says of it. */
function objectOf(entry: AuditEntry): string {
  const details = Object.entries(entry.details)
    .map(([key, value]) => `${key.replaceAll('_', ' ')}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ')
  const kind = entry.object_type.replaceAll('_', ' ')
  return details === '' ? `${kind} ${entry.object_id}` : `${kind} ${entry.object_id} (${details})`
}

/** The organization's audit log (admins only): filters, a page of entries, and the CSV of what the filters keep. */
export const AuditLogPage = settingsPage(AuditLogContent)

function AuditLogContent() {
  const [filters, setFilters] = useState<AuditFilters>(NO_AUDIT_FILTERS)
  const [skip, setSkip] = useState(0)
  const { data: members } = useSuspenseQuery(usersQueries.members())
  const page = useQuery(auditLogQueries.page(filters, skip))
  const change = (next: Partial<AuditFilters>) => {
    setFilters({ ...filters, ...next })
    setSkip(0)
  }
  const entries = page.data?.data ?? []
  return (
    <SettingsScreen
      title="Audit log"
      description="Sign-ins and failed sign-ins, API keys made and revoked, role changes, deactivations, exports, imports, webhook and single sign-on changes, and bulk deletes: who, when and from which address."
      actions={
        <a
          href={auditCsvUrl(filters)}
          download="audit-log.csv"
          className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
        >
          Export CSV
        </a>
      }
    >
      <div role="search" aria-label="Filter the audit log" className="flex flex-wrap items-end gap-3">
        <SelectField
          label="Action"
          value={filters.action}
          emptyLabel="Any action"
          options={ACTION_OPTIONS}
          onChange={(action) => {
            change({ action })
          }}
        />
        <SelectField
          label="Person"
          value={filters.userId}
          emptyLabel="Anyone"
          options={members.map((member) => ({
            value: member.user_id,
            label: [member.first_name, member.last_name].filter(Boolean).join(' ') || member.email,
          }))}
          onChange={(userId) => {
            change({ userId })
          }}
        />
        <DateRangeFields
          fromLabel="From"
          toLabel="To"
          from={filters.from === '' ? undefined : filters.from}
          to={filters.to === '' ? undefined : filters.to}
          onChange={({ from, to }) => {
            change({ from: from ?? '', to: to ?? '' })
          }}
        />
      </div>
      {page.isError ? (
        <p role="alert" className="text-sm text-red-700">
          The audit log could not be loaded.
        </p>
      ) : page.data === undefined ? (
        <p className="text-sm text-slate-500">Loading…</p>
      ) : (
        <SettingsTable
          label="Audit log"
          framed
          actions={false}
          // On a phone five columns squeezed the object's ids to a letter a line: the log scrolls sideways instead.
          minWidth="min-w-160"
          columns={['When', 'Who', 'Action', 'Object', 'Address']}
          rows={entries}
          ifNone="No entries match."
        >
          {(entry) => (
            <tr key={entry.id}>
              <td className={cell}>{formatDateTime(entry.date_created)}</td>
              <td className={cell}>{actorOf(entry)}</td>
              <td className={cell}>{actionLabel(entry.action)}</td>
              <td className={`${cell} text-slate-600 wrap-anywhere`}>{objectOf(entry)}</td>
              <td className={cell}>{entry.client_address ?? ''}</td>
            </tr>
          )}
        </SettingsTable>
      )}
      <div className="flex items-center gap-3">
        <Button
          isDisabled={skip === 0}
          onPress={() => {
            setSkip(Math.max(0, skip - AUDIT_PAGE_SIZE))
          }}
        >
          Newer
        </Button>
        <Button
          isDisabled={page.data?.has_more !== true}
          onPress={() => {
            setSkip(skip + AUDIT_PAGE_SIZE)
          }}
        >
          Older
        </Button>
      </div>
    </SettingsScreen>
  )
}
