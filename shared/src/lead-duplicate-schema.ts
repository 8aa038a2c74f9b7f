import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

// Likely duplicate leads (Leadline's own: Close has no such endpoint). Kept apart from the lead itself, so that
// Close clients see the lead they always did.

/** Why two leads look like one: a contact email or phone in common, the same web domain, or a very similar name. */
export const DUPLICATE_REASONS = ['email', 'phone', 'url', 'name'] as const
export type DuplicateReason = (typeof DUPLICATE_REASONS)[number]
export const duplicateReasonSchema = Type.Union(DUPLICATE_REASONS.map((r) => Type.Literal(r)))

/** The trigram similarity of two folded names (pg_trgm's measure) at or above which they count as very similar. */
export const NAME_SIMILARITY_THRESHOLD = 0.6

/** The most likely duplicates named for one lead. */
export const LEAD_DUPLICATES_MAX = 10

/** Enough of a lead to recognize it and open it. */
export const duplicateLeadSchema = Type.Object({
  id: Type.String(),
  display_name: Type.String(),
  url: Type.Union([Type.String(), Type.Null()]),
  status_id: Type.String(),
  status_label: Type.String(),
  date_created: timestampSchema,
})
export type DuplicateLead = Static<typeof duplicateLeadSchema>

/** Another lead that is likely the same as the one asked about. */
export const leadDuplicateSchema = Type.Object({
  lead: duplicateLeadSchema,
  reasons: Type.Array(duplicateReasonSchema, { description: 'What the two leads have in common.' }),
  similarity: Type.Number({
    minimum: 0,
    maximum: 1,
    description: `The trigram similarity of the two leads’ names (0 to 1); “name” is a reason from ${String(NAME_SIMILARITY_THRESHOLD)}.`,
  }),
})
export type LeadDuplicate = Static<typeof leadDuplicateSchema>

export const leadDuplicatesSchema = Type.Object({ data: Type.Array(leadDuplicateSchema) })
export type LeadDuplicates = Static<typeof leadDuplicatesSchema>

/**
 * Leads of the organization that share one thing: a contact email, a contact phone, a web domain or the same name.
 * `leads` are oldest first: merging keeps the first and merges each other into it.
 */
export const duplicateClusterSchema = Type.Object({
  reason: duplicateReasonSchema,
  value: Type.String({ description: 'What they share: the email, the phone (E.164), the domain or the folded name.' }),
  lead_count: Type.Integer({ description: 'How many leads share it; `leads` lists the first few.' }),
  leads: Type.Array(duplicateLeadSchema),
})
export type DuplicateCluster = Static<typeof duplicateClusterSchema>
