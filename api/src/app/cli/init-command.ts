import { provisionOrganization } from '../../crm/organizations/provision.js'
import { systemClock } from '../../platform/data/time.js'
import { leadlineCommand, required, UsageError } from './cli-command.js'
import { email, NAME_OPTIONS, optionalName, withDatabase } from './cli-support.js'

export function initCommand() {
  return leadlineCommand({
    name: 'init',
    usage: '--org NAME --email EMAIL [--first-name F] [--last-name L]',
    summary: 'create an organization with its first admin and an API key',
    options: [
      ['--org <NAME>', "the organization's name"],
      ['--email <EMAIL>', "the admin's email (an existing user with this email is reused)"],
      ...NAME_OPTIONS,
    ],
    notes: 'Prints {"organization_id","user_id","membership_id","api_key"}. The key is shown only once.',
    async run(input) {
      const name = required(input.string('--org'), '--org NAME')
      if (name.length > 200) throw new UsageError('--org: the name may have at most 200 characters')
      const admin = {
        name,
        email: email(input.string('--email')),
        firstName: optionalName(input.string('--first-name')),
        lastName: optionalName(input.string('--last-name')),
      }
      const created = await withDatabase(input.databaseUrl(), (db) => provisionOrganization(db, systemClock, admin))
      return {
        json: {
          organization_id: created.organization_id,
          user_id: created.user_id,
          membership_id: created.membership_id,
          api_key: created.api_key,
        },
        text: `Created organization "${name}" (${created.organization_id}).
Admin: ${admin.email} (${created.user_id}, membership ${created.membership_id})
API key: ${created.api_key}
Keep the key secret; it is not shown again.`,
      }
    },
  })
}
