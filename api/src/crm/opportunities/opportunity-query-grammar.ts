import { leadSearchGrammar } from '../leads/lead-search-grammar.js'

/**
 * The opportunity search language (`GET /api/v1/opportunity/?query=…`): the lead search grammar with one more kind
 * of term, a call such as `status_change(old_status:Demo new_status:Won)`, whose parentheses hold a query of its own.
 * The name must touch the "(": `renewal (a or b)` stays a word and a group, as in the lead search.
 */
const leadPrimary = 'Primary\n  = "(" _ expr:OrExpr _ ")"'

if (!leadSearchGrammar.includes(leadPrimary)) {
  throw new Error('The lead search grammar no longer has the Primary rule the opportunity grammar extends')
}

export const opportunitySearchGrammar = `${leadSearchGrammar.replace(
  leadPrimary,
  'Primary\n  = Call\n  / "(" _ expr:OrExpr _ ")"',
)}
Call
  = name:$NameChar+ "(" _ expr:OrExpr? _ ")" { return { kind: 'call', name, expr, offset: offset() } }
`
