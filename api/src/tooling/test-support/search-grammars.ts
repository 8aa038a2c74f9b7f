import { readFileSync } from 'node:fs'

function grammarFile(path: string): string {
  return readFileSync(new URL(path, import.meta.url), 'utf8')
}

/**
 * The lead search's grammar as one text, for tests that generate variants of it: the shared terms first (their
 * `Query` is then the start rule), then the lead search's own rules, as scripts/build-grammars.mjs composes them.
 */
export const leadSearchGrammar = `${grammarFile('../../platform/text/search-terms.peggy')}\n${grammarFile('../../crm/leads/lead-search.peggy')}`
