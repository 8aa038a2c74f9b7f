import { createApiKey } from '../../platform/security/api-key-repo.js'
import { formatTimestamp, systemClock } from '../../platform/data/time.js'
import { cliAuditContext, recordAudit } from '../../integrations/events/audit-repo.js'
import { leadlineCommand, required, UsageError } from './cli-command.js'
import { membershipOf } from '../../crm/users/user-repo.js'
import { orgId, ORG_OPTION, requireOrganization, withDatabase } from './cli-support.js'

export function keyCreateCommand() {
  return leadlineCommand({
    name: 'create',
    usage: '--org ORG_ID --user USER_ID',
    summary: 'issue another API key to a member of an organization',
    options: [ORG_OPTION, ['--user <USER_ID>', 'a member of that organization (user_…)']],
    notes: 'Prints {"api_key_id","api_key"}. The key is shown only once.',
    async run(input) {
      const organizationId = orgId(input.string('--org'))
      const userId = required(input.string('--user'), '--user USER_ID')
      const key = await withDatabase(input.databaseUrl(), async (db) => {
        await requireOrganization(db, organizationId)
        const user = await db.selectFrom('user').select('id').where('id', '=', userId).executeTakeFirst()
        if (user === undefined) throw new UsageError(`unknown user "${userId}"`)
        const membership = await membershipOf(db, organizationId, userId)
        if (membership === undefined) {
          throw new UsageError(`user "${userId}" is not a member of organization "${organizationId}"`)
        }
        return db.transaction().execute(async (tx) => {
          const made = await createApiKey(tx, systemClock, { organizationId, userId, membershipId: membership.id })
          await recordAudit(tx, cliAuditContext(organizationId, formatTimestamp(systemClock.now())), [
            {
              action: 'api_key_created',
              objectType: 'api_key',
              objectId: made.api_key_id,
              details: { user_id: userId, source: 'leadline key create' },
            },
          ])
          return made
        })
      })
      return {
        json: { api_key_id: key.api_key_id, api_key: key.api_key },
        text: `Created API key ${key.api_key_id} for ${userId} in ${organizationId}.
API key: ${key.api_key}
Keep the key secret; it is not shown again.`,
      }
    },
  })
}
