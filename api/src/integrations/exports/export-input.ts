import { Type, type Static } from '@sinclair/typebox'
import { maxQueryLength } from '../../crm/leads/lead-search-parse.js'
import { OPPORTUNITY_FILTER_PROPERTIES } from '../../crm/opportunities/opportunity-list.js'

// What POST /export/lead/ and /export/opportunity/ take, in Close's names (decision 0052).

export const EXPORT_FIELDS_MAX = 200
export const EXPORT_FIELD_LENGTH_MAX = 200

const format = Type.Union([Type.Literal('csv'), Type.Literal('json')], {
  description: 'The file’s format: `csv` or `json` (a JSON array).',
})
const dateFormat = Type.Optional(
  Type.Union([Type.Literal('original'), Type.Literal('iso8601')], {
    description:
      'How a CSV writes timestamps: `original` (default) `YYYY-MM-DD hh:mm:ss.ffffff+00:00`, `iso8601` ' +
      '`YYYY-MM-DDThh:mm:ss+00:00`; dates stay `YYYY-MM-DD`. A JSON file keeps the API’s timestamps whatever it says.',
  }),
)
const fields = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: EXPORT_FIELD_LENGTH_MAX }), {
    maxItems: EXPORT_FIELDS_MAX,
    uniqueItems: true,
    description:
      'Only these columns (CSV, in this order) or keys (JSON) of each row; by default all of them. A custom field’s ' +
      'column is `custom.<field name>`.',
  }),
)
const sendDoneEmail = Type.Optional(
  Type.Boolean({ description: 'Taken for Close clients (ignored): Leadline sends no email when an export is done.' }),
)
const notImplemented = (what: string) =>
  Type.Optional(
    Type.Unknown({
      description: `Close’s ${what} (advanced filtering): not implemented, refused with a 400; use \`query\`.`,
    }),
  )

export const leadExportBody = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        maxLength: maxQueryLength,
        description: 'The lead search language, as `query` of GET /lead/ takes it (no `sort:`); by default all leads.',
      }),
    ),
    format,
    type: Type.Union([Type.Literal('leads'), Type.Literal('contacts'), Type.Literal('lead_opps')], {
      description:
        'One row (CSV) or object (JSON) per lead (`leads`), per contact (`contacts`) or per opportunity (`lead_opps`).',
    }),
    date_format: dateFormat,
    fields,
    send_done_email: sendDoneEmail,
    s_query: notImplemented('`s_query`'),
    results_limit: notImplemented('`results_limit`'),
    sort: notImplemented('`sort`'),
  },
  { additionalProperties: false },
)
export type LeadExportBody = Static<typeof leadExportBody>

export const opportunityExportParams = Type.Object(
  {
    ...OPPORTUNITY_FILTER_PROPERTIES,
    query: Type.Optional(
      Type.String({
        maxLength: maxQueryLength,
        description: 'An opportunity search, as `query` of GET /opportunity/.',
      }),
    ),
    lead_query: Type.Optional(
      Type.String({
        maxLength: maxQueryLength,
        description: 'A lead search: only opportunities of the leads it finds, as `lead_query` of GET /opportunity/.',
      }),
    ),
  },
  { additionalProperties: false, description: 'The filters of GET /opportunity/; by default every opportunity.' },
)
export type OpportunityExportParams = Static<typeof opportunityExportParams>

export const opportunityExportBody = Type.Object(
  {
    params: Type.Optional(opportunityExportParams),
    format,
    date_format: dateFormat,
    fields,
    send_done_email: sendDoneEmail,
  },
  { additionalProperties: false },
)
export type OpportunityExportBody = Static<typeof opportunityExportBody>
