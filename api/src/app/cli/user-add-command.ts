import { setPassword, WeakPasswordError } from '../../accounts/account-repo.js'
import { provisionMember } from '../../crm/organizations/provision.js'
import { inTransaction } from '../../platform/data/database.js'
import { systemClock } from '../../platform/data/time.js'
import { leadlineCommand, UsageError } from './cli-command.js'
import {
  email,
  NAME_OPTIONS,
  optionalName,
  orgId,
  ORG_OPTION,
  requireOrganization,
  role,
  withDatabase,
} from './cli-support.js'

export function userAddCommand() {
  return leadlineCommand({
    name: 'add',
    usage: '--org ORG_ID --email EMAIL [--role admin|user] [--first-name F] [--last-name L] [--password-env VAR]',
    summary: 'add a user to an organization and issue their API key',
    options: [
      ORG_OPTION,
      ['--email <EMAIL>', "the user's email (an existing user with this email is reused)"],
      ['--role <admin|user>', 'default user'],
      ...NAME_OPTIONS,
      ['--password-env <VAR>', 'set their password from this environment variable (so it is in no command line)'],
    ],
    notes:
      'Prints {"user_id","membership_id","api_key"}. The key is shown only once. A password must have at least 12 ' +
      'characters and not be easy to guess; a weak one is refused with the reason, and nothing is added.',
    async run(input) {
      const member = {
        organizationId: orgId(input.string('--org')),
        email: email(input.string('--email')),
        role: role(input.string('--role')),
        firstName: optionalName(input.string('--first-name')),
        lastName: optionalName(input.string('--last-name')),
      }
      const passwordEnv = input.string('--password-env')
      const password = passwordEnv === undefined ? undefined : input.env[passwordEnv]
      if (passwordEnv !== undefined && (password === undefined || password === '')) {
        throw new UsageError(`--password-env ${passwordEnv}: that environment variable is not set`)
      }
      const added = await withDatabase(input.databaseUrl(), async (db) => {
        await requireOrganization(db, member.organizationId)
        return inTransaction(db, async (tx) => {
          const provisioned = await provisionMember(tx, systemClock, member)
          if (password !== undefined) {
            await setPassword(tx, systemClock, provisioned.user_id, password).catch((error: unknown) => {
              throw error instanceof WeakPasswordError ? new UsageError(`--password-env: ${error.message}`) : error
            })
          }
          return provisioned
        })
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
