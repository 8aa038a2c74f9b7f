import { useSuspenseQuery } from '@tanstack/react-query'
import type { Organization } from '@leadline/shared/organization-schema'
import { useState, type SubmitEvent } from 'react'
import { CardSection } from '../../components/ui/card-section'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { placeErrors } from '../../lib/form-errors'
import { authQueries } from '../auth/auth-queries'
import { EnvironmentFacts } from './organization-environment'
import { useSaveOrganization } from './organization-mutations'
import { organizationQueries } from './organization-queries'
import { settingsPage, SettingsSave, SettingsScreen } from './settings-layout'

/** The organization's name and currency, and what the server's environment sets for it (read-only). */
export const OrganizationPage = settingsPage(OrganizationPageContent)

function OrganizationPageContent() {
  const { data: session } = useSuspenseQuery(authQueries.session())
  const id = session.organization.id
  const { data: organization } = useSuspenseQuery(organizationQueries.detail(id))
  const { data: environment } = useSuspenseQuery(organizationQueries.environment(id))
  return (
    <SettingsScreen title="Organization" description="Your organization’s name and the currency of its deals." narrow>
      <CardSection headingId="organization-details" title="Details">
        {/* Keyed by what is stored: another admin's change shows in the form once it arrives. */}
        <OrganizationForm key={`${organization.name}\u0000${organization.currency}`} organization={organization} />
      </CardSection>
      <CardSection headingId="organization-environment" title="Set by the server">
        <p className="text-sm text-slate-600">
          The server’s operator sets these in its environment; they change only there.
        </p>
        <EnvironmentFacts environment={environment} />
      </CardSection>
    </SettingsScreen>
  )
}

function OrganizationForm({ organization }: { organization: Organization }) {
  const save = useSaveOrganization(organization.id)
  const [name, setName] = useState(organization.name)
  const [currency, setCurrency] = useState(organization.currency)
  const { beside, general } = placeErrors(['name', 'currency'], save.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    save.mutate(
      { name: name.trim(), currency: currency.trim().toUpperCase() },
      {
        onSuccess: () => {
          showToast({ title: 'Organization saved' })
        },
      },
    )
  }
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value)
    save.reset()
  }
  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      <TextField label="Name" value={name} onChange={edit(setName)} isRequired error={beside.name} />
      <TextField
        label="Currency"
        value={currency}
        onChange={edit(setCurrency)}
        isRequired
        error={beside.currency}
        description="The three-letter ISO 4217 code of deal values, such as USD or EUR."
        className="w-48"
      />
      <SettingsSave error={general} label="Save organization" isPending={save.isPending} />
    </form>
  )
}
