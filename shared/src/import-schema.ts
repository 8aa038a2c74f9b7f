import { Type, type Static } from '@sinclair/typebox'

// A CSV import (issue 32): Leadline's own resource, `/api/v1/import/`. A file is uploaded, its columns mapped to
// targets, a duplicate rule chosen, checked in a dry run, run as a background job and, once done, undone if need be.

export const IMPORT_STATUSES = [
  'uploaded',
  'checking',
  'checked',
  'queued',
  'running',
  'done',
  'error',
  'undoing',
  'undone',
] as const
export type ImportStatus = (typeof IMPORT_STATUSES)[number]

/** Statuses in which the import's job is under way (the web polls while one of these lasts). */
export const IMPORT_BUSY_STATUSES: readonly ImportStatus[] = ['checking', 'queued', 'running', 'undoing']

export const IMPORT_ENCODINGS = ['utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be', 'windows-1252'] as const
export type ImportEncoding = (typeof IMPORT_ENCODINGS)[number]

/** What a row is matched on against the organization's leads, and what happens to a row that matches one. */
export const DUPLICATE_MATCHES = ['email', 'phone', 'url', 'name', 'none'] as const
export const DUPLICATE_ACTIONS = ['skip', 'update', 'create'] as const
export type DuplicateMatch = (typeof DUPLICATE_MATCHES)[number]
export type DuplicateAction = (typeof DUPLICATE_ACTIONS)[number]

/**
 * The fixed targets a column can be mapped to, with a label for the wizard and the header names (lower case, words
 * separated by one space) that map to it on their own. Besides these: `custom.<custom field id>` (an existing lead,
 * contact or opportunity custom field; a `user` field takes a member's email or name, which is how a lead's owner
 * comes in) and `new_custom_field` (a new lead text field named after the column). A column left out of `mapping`
 * is not imported.
 */
export const IMPORT_TARGETS = [
  {
    target: 'lead.name',
    label: 'Company',
    synonyms: ['company', 'company name', 'lead', 'lead name', 'organization', 'account', 'account name', 'business'],
  },
  {
    target: 'lead.url',
    label: 'Company URL',
    synonyms: ['url', 'website', 'web site', 'company url', 'domain', 'homepage'],
  },
  {
    target: 'lead.description',
    label: 'Company description',
    synonyms: ['description', 'company description', 'about'],
  },
  { target: 'lead.status', label: 'Lead status', synonyms: ['status', 'lead status', 'stage'] },
  {
    target: 'contact.name',
    label: 'Contact name',
    synonyms: ['name', 'contact', 'contact name', 'full name', 'person'],
  },
  {
    target: 'contact.first_name',
    label: 'Contact first name',
    synonyms: ['first name', 'firstname', 'given name', 'first'],
  },
  {
    target: 'contact.last_name',
    label: 'Contact last name',
    synonyms: ['last name', 'lastname', 'surname', 'family name', 'last'],
  },
  {
    target: 'contact.title',
    label: 'Contact title',
    synonyms: ['title', 'job title', 'position', 'role', 'contact title'],
  },
  {
    target: 'contact.email',
    label: 'Contact email',
    synonyms: ['email', 'e mail', 'email address', 'contact email', 'work email', 'mail'],
  },
  {
    target: 'contact.phone',
    label: 'Contact phone',
    synonyms: ['phone', 'phone number', 'telephone', 'tel', 'mobile', 'cell', 'contact phone', 'work phone'],
  },
  { target: 'contact.url', label: 'Contact URL', synonyms: ['contact url', 'linkedin', 'linkedin url', 'profile'] },
  {
    target: 'address.address_1',
    label: 'Address line 1',
    synonyms: ['address', 'address 1', 'address line 1', 'street', 'street address'],
  },
  { target: 'address.address_2', label: 'Address line 2', synonyms: ['address 2', 'address line 2', 'suite'] },
  { target: 'address.city', label: 'City', synonyms: ['city', 'town'] },
  { target: 'address.state', label: 'State', synonyms: ['state', 'province', 'region', 'county'] },
  { target: 'address.zipcode', label: 'Zip code', synonyms: ['zip', 'zipcode', 'zip code', 'postal code', 'postcode'] },
  { target: 'address.country', label: 'Country', synonyms: ['country', 'country code'] },
  {
    target: 'opportunity.value',
    label: 'Opportunity value',
    synonyms: ['value', 'amount', 'deal value', 'opportunity value'],
  },
  { target: 'opportunity.value_period', label: 'Opportunity value period', synonyms: ['value period', 'period'] },
  { target: 'opportunity.confidence', label: 'Opportunity confidence', synonyms: ['confidence', 'probability'] },
  {
    target: 'opportunity.status',
    label: 'Opportunity status',
    synonyms: ['opportunity status', 'deal status', 'deal stage'],
  },
  {
    target: 'opportunity.note',
    label: 'Opportunity note',
    synonyms: ['opportunity note', 'deal note', 'note', 'notes'],
  },
  { target: 'opportunity.date_won', label: 'Opportunity date won', synonyms: ['date won', 'close date', 'won date'] },
] as const
export type FixedImportTarget = (typeof IMPORT_TARGETS)[number]['target']

export const NEW_CUSTOM_FIELD = 'new_custom_field'

export const IMPORT_LIMITS = {
  /** Columns a file may have. */
  columns: 500,
  /** Characters of one header cell. */
  headerChars: 200,
  /** Data rows shown in `preview`. */
  previewRows: 10,
  /** Row problems kept in a dry run's `sample`. */
  sampleProblems: 100,
} as const

const count = Type.Integer({ minimum: 0 })

export const duplicateRuleSchema = Type.Object(
  {
    match: Type.Union(
      DUPLICATE_MATCHES.map((m) => Type.Literal(m)),
      {
        description:
          'What makes a row the same as an existing lead: a contact email, a contact phone, the URL’s domain, the ' +
          'lead’s name (case ignored), or `none` (every row is new).',
      },
    ),
    action: Type.Union(
      DUPLICATE_ACTIONS.map((a) => Type.Literal(a)),
      {
        description: '`skip` the row, `update` the lead it matches, or `create` a new lead anyway.',
      },
    ),
  },
  { additionalProperties: false },
)
export type DuplicateRule = Static<typeof duplicateRuleSchema>

export const importProblemSchema = Type.Object({
  row: Type.Integer({ minimum: 1, description: 'The data row, from 1 (the header is row 0).' }),
  column: Type.Union([Type.String(), Type.Null()], { description: 'The column at fault; null for the whole row.' }),
  value: Type.Union([Type.String(), Type.Null()]),
  problem: Type.String({ description: 'What is wrong, in words (“not an email address”, “unknown lead status”…).' }),
})
export type ImportProblem = Static<typeof importProblemSchema>

export const importSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  created_by: Type.String(),
  filename: Type.String(),
  size: Type.Integer({ minimum: 0, description: 'Bytes of the file as uploaded.' }),
  encoding: Type.Union(
    IMPORT_ENCODINGS.map((e) => Type.Literal(e)),
    { description: 'As detected.' },
  ),
  delimiter: Type.String({ description: 'As detected: `,`, `;`, tab or `|`.' }),
  columns: Type.Array(Type.String(), { description: 'The header row.' }),
  preview: Type.Array(Type.Array(Type.String()), { description: 'The first data rows, as parsed.' }),
  n_rows: count,
  mapping: Type.Record(Type.String(), Type.String(), {
    description: 'Column name → target; suggested from the headers on upload. Columns left out are not imported.',
  }),
  duplicate_rule: duplicateRuleSchema,
  status: Type.Union(IMPORT_STATUSES.map((status) => Type.Literal(status))),
  progress: Type.Object({ rows_done: count, rows_total: count }),
  check: Type.Union(
    [
      Type.Object({
        rows_ok: count,
        rows_failed: count,
        problems: Type.Record(Type.String(), count, { description: 'Problem → rows with it.' }),
        sample: Type.Array(importProblemSchema),
      }),
      Type.Null(),
    ],
    { description: 'What the dry run found; null until one finished.' },
  ),
  counts: Type.Object({
    created: Type.Integer({ minimum: 0, description: 'Leads created.' }),
    updated: Type.Integer({ minimum: 0, description: 'Existing leads updated.' }),
    contacts_created: count,
    skipped: Type.Integer({ minimum: 0, description: 'Rows skipped by the duplicate rule.' }),
    failed: Type.Integer({ minimum: 0, description: 'Rows not imported, each with its reason in the failed rows.' }),
  }),
  failed_rows_url: Type.Union([Type.String(), Type.Null()], {
    description: 'A CSV of the failed rows with a `reason` column, once a dry run or run found some.',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed, when `status` is `error`.' }),
  date_created: Type.String(),
  date_updated: Type.String(),
})
export type ImportView = Static<typeof importSchema>

/** A header cell as the synonyms are written: lower case, separators as one space. */
export function headerKey(header: string): string {
  return header
    .toLowerCase()
    .replace(/[\s_\-.]+/g, ' ')
    .trim()
}

/**
 * The mapping suggested for a file's header: each fixed target's synonyms, then custom fields by name (case and
 * separators ignored). A target is given to the first column that names it; later ones are left out.
 */
export function suggestMapping(
  columns: readonly string[],
  customFields: readonly { id: string; name: string }[],
): Record<string, string> {
  const bySynonym = new Map<string, string>()
  for (const { target, synonyms } of IMPORT_TARGETS) for (const s of synonyms) bySynonym.set(s, target)
  for (const field of customFields) {
    const key = headerKey(field.name)
    // A custom field named like a fixed target's synonym (say “Status”) is the better guess: it was made for this.
    bySynonym.set(key, `custom.${field.id}`)
    bySynonym.set(`custom ${key}`, `custom.${field.id}`)
  }
  const mapping: Record<string, string> = {}
  const taken = new Set<string>()
  for (const column of columns) {
    const target = bySynonym.get(headerKey(column))
    if (target === undefined || taken.has(target)) continue
    taken.add(target)
    mapping[column] = target
  }
  return mapping
}
