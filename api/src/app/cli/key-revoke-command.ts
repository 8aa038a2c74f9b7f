import { revokeApiKey } from '../../platform/security/api-key-repo.js'
import { formatTimestamp, systemClock } from '../../platform/data/time.js'
import { cliAuditContext, recordAudit } from '../../integrations/events/audit-repo.js'
import { leadlineCommand, required, UsageError } from './cli-command.js'
import { withDatabase } from './cli-support.js'

export function keyRevokeCommand() {
  return leadlineCommand({
    name: 'revoke',
    usage: 'ID',
    summary: 'revoke an API key; every api process refuses it within 5 seconds',
    argument: ['ID', "the key's id (key_…, the part of the key before the dot)"],
    notes: 'Prints {"api_key_id","revoked":true}. Revoking a revoked key again is harmless.',
    async run(input) {
      // Accept a whole key too: its id is the part before the dot; the secret is never used.
      const id = required(input.args[0], 'ID (the API key id)').split('.')[0] ?? ''
      const found = await withDatabase(input.databaseUrl(), (db) =>
        db.transaction().execute(async (tx) => {
          const revoked = await revokeApiKey(tx, systemClock, id)
          // Only a key this command revoked: revoking one again changes nothing, and is not recorded.
          if (revoked?.revokedNow === true) {
            await recordAudit(tx, cliAuditContext(revoked.organizationId, formatTimestamp(systemClock.now())), [
              {
                action: 'api_key_revoked',
                objectType: 'api_key',
                objectId: id,
                details: { user_id: revoked.userId, source: 'leadline key revoke' },
              },
            ])
          }
          return revoked !== undefined
        }),
      )
      if (!found) throw new UsageError(`unknown API key "${id}"`)
      return { json: { api_key_id: id, revoked: true }, text: `Revoked API key ${id}.` }
    },
  })
}
