import { useSuspenseQuery } from '@tanstack/react-query'
import { formatDateTime } from '../../lib/format'
import { apiKeyName, NewApiKeyForm, RevokeApiKeyButton } from '../profile/api-key-parts'
import { profileQueries } from '../profile/profile-queries'
import { settingsPage, SettingsScreen } from './settings-layout'
import { SettingsTable } from './settings-table'

const cell = 'px-3 py-2 align-middle'

/** Every live API key of the organization, whoever made it (admins only); an admin makes their own here too. */
export const ApiKeysPage = settingsPage(ApiKeysPageContent)

function ApiKeysPageContent() {
  // An admin's `/api_key/` is every key of the organization.
  const { data: keys } = useSuspenseQuery(profileQueries.apiKeys())
  return (
    <SettingsScreen
      title="API keys"
      description="The keys scripts and other tools use to reach the Leadline API. A key acts as its owner, with their role. Keys of sign-in sessions are not listed."
    >
      <section aria-labelledby="new-key-heading" className="flex flex-col gap-3">
        <h2 id="new-key-heading" className="text-lg font-semibold text-slate-900">
          A key of your own
        </h2>
        <NewApiKeyForm />
      </section>
      <SettingsTable
        label="API keys"
        framed
        columns={['Description', 'Owner', 'Created', 'Last used']}
        rows={keys}
        ifNone="The organization has no API keys."
      >
        {(key) => (
          <tr key={key.id}>
            <th scope="row" className={`${cell} font-medium text-slate-900`}>
              {apiKeyName(key)}
            </th>
            <td className={cell}>{key.user_name}</td>
            <td className={cell}>{formatDateTime(key.date_created)}</td>
            <td className={cell}>{key.date_last_used === null ? 'Never' : formatDateTime(key.date_last_used)}</td>
            <td className={`${cell} text-right`}>
              <RevokeApiKeyButton apiKey={key} />
            </td>
          </tr>
        )}
      </SettingsTable>
    </SettingsScreen>
  )
}
