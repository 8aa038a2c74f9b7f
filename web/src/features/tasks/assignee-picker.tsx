import { useQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { SelectField } from '../../components/ui/select-field'
import { setupQueries } from '../leads/lead-queries'
import type { InboxSearch } from './inbox-search'

/** Whose tasks an admin sees: their own, a teammate's or everyone's, kept in the URL's `user`. */
export function AssigneePicker({ userId, value, search }: { userId: string; value: string; search: InboxSearch }) {
  const members = useQuery(setupQueries.members())
  const navigate = useNavigate()
  const options = [
    { value: userId, label: 'My tasks' },
    ...(members.data ?? []).filter((m) => m.id !== userId).map((m) => ({ value: m.id, label: m.display_name })),
    { value: 'all', label: 'Everyone' },
  ]
  // A teammate's id before the members have loaded still needs its option, or the select shows the wrong one.
  if (!options.some((o) => o.value === value)) options.splice(1, 0, { value, label: 'A teammate' })
  return (
    <SelectField
      label="Tasks of"
      value={value}
      options={options}
      onChange={(user) => {
        void navigate({ to: '/inbox', search: { ...search, user: user === userId ? undefined : user } })
      }}
    />
  )
}
