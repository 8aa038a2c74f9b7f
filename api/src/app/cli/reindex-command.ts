import { rebuildLeadSearch, SEARCH_DOCUMENT_VERSION } from '../../crm/leads/lead-search-index.js'
import { leadlineCommand } from './cli-command.js'
import { progress, withDatabase } from './cli-support.js'

export function rebuiltText(leads: number): string {
  return `Rebuilt the search documents of ${leads} ${leads === 1 ? 'lead' : 'leads'} (format ${SEARCH_DOCUMENT_VERSION}).`
}

export function reindexCommand() {
  return leadlineCommand({
    name: 'reindex',
    usage: '',
    summary: "rebuild every lead's free-text search document",
    notes: `Rebuilds the documents free-text search looks in, for every lead of every organization, a batch at a time
(the api can keep serving). Start-up and "leadline migrate" do this by themselves when the documents are in an older
format; run it by hand only if they are suspected wrong. Prints {"reindexed_leads":N,"search_document_version":V}.`,
    async run(input) {
      const onProgress = progress(input.json, 'reindexing', 'reindexed')
      const leads = await withDatabase(input.databaseUrl(), (db) => rebuildLeadSearch(db, { onProgress }))
      return {
        json: { reindexed_leads: leads, search_document_version: SEARCH_DOCUMENT_VERSION },
        text: rebuiltText(leads),
      }
    },
  })
}
