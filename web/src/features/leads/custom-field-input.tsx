import { useQuery } from '@tanstack/react-query'
import type { CustomField, CustomValue } from '@leadline/shared/custom-field-schema'
import type { Lead } from '@leadline/shared/lead-schema'
import type { User } from '@leadline/shared/user-schema'
import type { SelectOption } from '../../components/ui/select-field'
import { api } from '../../lib/api'
import { customValuesOf } from './custom-values'
import { setupQueries } from './lead-queries'
import { formatCalendarDate, formatDateTime } from '../../lib/format'

/** Ids with the names to show for them: members for `user` fields, the lead's contacts for `contact` fields. */
export type ReferenceOption = SelectOption

/** The most former members a lead's fields look up one by one (each is a request). */
const FORMER_MEMBERS_MAX = 20

/**
 * The names behind `user` and `contact` values on this lead: members are fetched only when a field refers to them.
 * A value naming someone no longer active (the members list has active ones only) is looked up by id, so it shows
 * their name rather than their id. Returns a lookup by field, so the display and the editor show the same names.
 */
export function useReferenceOptions(lead: Lead, fields: readonly CustomField[]) {
  const userFields = fields.filter((f) => f.type === 'user')
  const members = useQuery({ ...setupQueries.members(), enabled: userFields.length > 0 })
  const active = (members.data ?? []).map((u) => ({ value: u.id, label: u.display_name }))
  const known = new Set(active.map((o) => o.value))
  const records: Record<string, unknown>[] = [lead, ...lead.contacts]
  const named = records.flatMap((record) => userFields.flatMap((f) => customValuesOf(record, f).map(String)))
  const missing =
    members.data === undefined ? [] : [...new Set(named)].filter((id) => !known.has(id)).slice(0, FORMER_MEMBERS_MAX)
  const former = useQuery({
    queryKey: ['members', 'former', missing],
    // One that is gone altogether (a 404) keeps showing its id; the others still get their names.
    queryFn: () =>
      Promise.all(missing.map((id) => api.get<User>(`user/${encodeURIComponent(id)}/`).catch(() => undefined))),
    enabled: missing.length > 0,
    staleTime: Infinity,
    retry: false,
  })
  const memberOptions = [
    ...active,
    ...(former.data ?? []).flatMap((u) => (u === undefined ? [] : [{ value: u.id, label: u.display_name }])),
  ]
  const contactOptions = lead.contacts.map((c) => ({
    value: c.id,
    label: c.display_name === '' ? 'Unnamed contact' : c.display_name,
  }))
  return (field: CustomField): readonly ReferenceOption[] =>
    field.type === 'user' ? memberOptions : field.type === 'contact' ? contactOptions : []
}

export function CustomValueDisplay({
  field,
  values,
  references = [],
}: {
  field: CustomField
  values: CustomValue[]
  references?: readonly ReferenceOption[]
}) {
  if (values.length === 0) return <span className="text-slate-400">—</span>
  const text = (value: CustomValue) => {
    if (field.type === 'date') return formatCalendarDate(String(value))
    if (field.type === 'datetime') return formatDateTime(String(value))
    if (field.type === 'number' && typeof value === 'number') return value.toLocaleString()
    // A member who left or a deleted contact still shows, by id, rather than vanishing.
    if (field.type === 'user' || field.type === 'contact') {
      return references.find((r) => r.value === value)?.label ?? String(value)
    }
    return String(value)
  }
  return (
    <span className={field.type === 'textarea' ? 'whitespace-pre-wrap' : undefined}>{values.map(text).join(', ')}</span>
  )
}
