import { ensureLeadSearchCurrent } from '../../crm/leads/lead-search-index.js'
import { leadlineCommand } from './cli-command.js'
import { progress, withDatabase } from './cli-support.js'
import { rebuiltText } from './reindex-command.js'

export function migrateCommand() {
  return leadlineCommand({
    name: 'migrate',
    usage: '',
    summary: 'bring the database schema up to date',
    notes: `Applies the migrations the database does not have yet, then rebuilds the leads' search documents if they
are in an older format than this version writes; running it again changes nothing.
Prints {"applied":[names],"reindexed_leads":N}.`,
    async run(input) {
      const onProgress = progress(input.json, 'reindexing', 'reindexed')
      const { applied, reindexed } = await withDatabase(input.databaseUrl(), async (db, names) => ({
        applied: names,
        reindexed: (await ensureLeadSearchCurrent(db, { onProgress })) ?? 0,
      }))
      const lines = [applied.length === 0 ? 'The database is up to date.' : `Applied migrations: ${applied.join(', ')}`]
      if (reindexed > 0) lines.push(rebuiltText(reindexed))
      return { json: { applied, reindexed_leads: reindexed }, text: lines.join('\n') }
    },
  })
}
