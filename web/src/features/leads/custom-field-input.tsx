import { useQuery } from '@tanstack/react-query'
import type { CustomField, CustomValue } from '@leadline/shared/custom-field-schema'
import type { Lead } from '@leadline/shared/lead-schema'
import type { SelectOption } from '../../components/ui/select-field'
import { setupQueries } from './lead-queries'
import { formatCalendarDate, formatDateTime } from '../../lib/format'

/** Ids with the names to show for them: members for `user` fields, the lead's contacts for `contact` fields. */
export type ReferenceOption = SelectOption

/**
 * The names behind `user` and `contact` values on this lead: members are fetched only when a field refers to them.
 * Returns a lookup by field, so the display and the editor show the same names.
 */
export function useReferenceOptions(lead: Lead, fields: readonly CustomField[]) {
  const members = useQuery({ ...setupQueries.members(), enabled: fields.some((f) => f.type === 'user') })
  const memberOptions = (members.data ?? []).map((u) => ({ value: u.id, label: u.display_name }))
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
