import { provisionMember } from '../../crm/organizations/provision.js'
import { systemClock } from '../../platform/data/time.js'
import { leadlineCommand, required } from './cli-command.js'
import { email, NAME_OPTIONS, optionalName, requireOrganization, role, withDatabase } from './cli-support.js'

export function userAddCommand() {
  return leadlineCommand({
    name: 'add',
    usage: '--org ORG_ID --email EMAIL [--role admin|user] [--first-name F] [--last-name L]',
    summary: 'add a user to an organization and issue their API key',
    options: [
      ['--org <ORG_ID>', 'the organization (orga_…)'],
      ['--email <EMAIL>', "the user's email (an existing user with this email is reused)"],
      ['--role <admin|user>', 'default user'],
      ...NAME_OPTIONS,
    ],
    notes: 'Prints {"user_id","membership_id","api_key"}. The key is shown only once.',
    async run(input) {
      const member = {
        organizationId: required(input.string('--org'), '--org ORG_ID'),
        email: email(input.string('--email')),
        role: role(input.string('--role')),
        firstName: optionalName(input.string('--first-name')),
        lastName: optionalName(input.string('--last-name')),
      }
      const added = await withDatabase(input.databaseUrl(), async (db) => {
        await requireOrganization(db, member.organizationId)
        return provisionMember(db, systemClock, member)
      })
      return {
        json: { user_id: added.user_id, membership_id: added.membership_id, api_key: added.api_key },
        text: `Added ${member.email} (${added.user_id}) to ${member.organizationId} as ${member.role} (membership ${added.membership_id}).
API key: ${added.api_key}
Keep the key secret; it is not shown again.`,
      }
    },
  })
}
