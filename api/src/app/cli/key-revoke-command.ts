import { revokeApiKey } from '../../platform/security/api-key-repo.js'
import { systemClock } from '../../platform/data/time.js'
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
      const found = await withDatabase(input.databaseUrl(), (db) => revokeApiKey(db, systemClock, id))
      if (!found) throw new UsageError(`unknown API key "${id}"`)
      return { json: { api_key_id: id, revoked: true }, text: `Revoked API key ${id}.` }
    },
  })
}
