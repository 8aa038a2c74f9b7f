import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { CardSection } from '../../components/ui/card-section'
import { SelectField, type SelectOption } from '../../components/ui/select-field'
import { showToast } from '../../components/ui/toast'
import { api } from '../../lib/api'
import { placeErrors } from '../../lib/form-errors'
import { useFormValue } from '../../lib/form-value'
import { browserTimeZone } from '../../lib/format'
import { useSaveTimeZone } from './profile-mutations'

/** The person's own profile as the API keeps it; read with this section only. */
interface OwnProfile {
  time_zone: string | null
}

const ownProfile = queryOptions({
  queryKey: ['profile', 'own'] as const,
  queryFn: () => api.get<OwnProfile>('auth/profile/'),
})

/** Every IANA zone the browser knows, by name; UTC first. */
function zoneOptions(): SelectOption[] {
  const zones = Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')
  return ['UTC', ...zones].map((zone) => ({ value: zone, label: zone.replaceAll('_', ' ') }))
}

/**
 * The zone times and "today" show in, on every device the person signs in on. Until they choose one it is the
 * browser's, whatever machine they are at.
 */
export function TimeZoneSection() {
  const profile = useQuery(ownProfile)
  if (profile.data === undefined) return null
  return <TimeZoneForm chosen={profile.data.time_zone ?? ''} />
}

function TimeZoneForm({ chosen }: { chosen: string }) {
  const save = useSaveTimeZone()
  const queryClient = useQueryClient()
  const zone = useFormValue(chosen, save)
  const [options] = useState(zoneOptions)
  const { beside, general } = placeErrors(['time_zone'], save.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    save.mutate(zone.value === '' ? null : zone.value, {
      onSuccess: () => {
        showToast({ title: 'Time zone saved' })
        // "Today", due dates and every time shown move with the zone.
        void queryClient.invalidateQueries()
      },
    })
  }
  return (
    <CardSection headingId="time-zone-heading" title="Time zone">
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <SelectField
          label="Time zone"
          name="time_zone"
          {...zone.field}
          options={options}
          emptyLabel={`Your browser’s (${browserTimeZone()})`}
          error={beside.time_zone ?? general}
        />
        <p className="text-sm text-slate-600">
          Times, due dates and “today” show in this zone on every device you sign in on.
        </p>
        <Button type="submit" variant="primary" isPending={save.isPending} className="self-start">
          Save time zone
        </Button>
      </form>
    </CardSection>
  )
}
