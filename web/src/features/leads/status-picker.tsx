import { useQuery } from '@tanstack/react-query'
import type { Lead } from '@leadline/shared/lead-schema'
import { SelectField } from '../../components/ui/select-field'
import { setupQueries, useChangeStatus } from './lead-queries'

/** The lead's status; a change shows at once and rolls back (with a toast) if the API refuses it. */
export function StatusPicker({ lead }: { lead: Lead }) {
  const statuses = useQuery(setupQueries.statuses())
  const changeStatus = useChangeStatus(lead.id)
  const options = statuses.data?.map((s) => ({ value: s.id, label: s.label })) ?? [
    { value: lead.status_id, label: lead.status_label },
  ]
  return (
    <SelectField
      label="Status"
      value={lead.status_id}
      options={options}
      className="w-56"
      onChange={(statusId) => {
        const status = statuses.data?.find((s) => s.id === statusId)
        if (status !== undefined && status.id !== lead.status_id) changeStatus.mutate(status)
      }}
    />
  )
}
