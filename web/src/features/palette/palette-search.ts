import type { Contact } from '@leadline/shared/contact-schema'
import type { Lead } from '@leadline/shared/lead-schema'
import type { Opportunity } from '@leadline/shared/opportunity-schema'

// What the command palette asks the API for as one types, and how the answer becomes its groups; no React, so the
// rules are unit-tested. The bench (api/src/tooling/bench/bench.ts, scenario `palette`) sends the same requests.

/**
 * The API's trigram index finds a word of three characters or more at once; a shorter one it must test lead by lead
 * (a few hundred milliseconds at 100,000 leads), so shorter words are left to the typing that follows.
 */
export const MIN_WORD_LENGTH = 3
/** Leads asked for per search; their contacts and opportunities come nested in the same answer. */
export const PALETTE_LEADS = 8
export const PALETTE_FIELDS = 'id,display_name,status_label,contacts,opportunities'
const MAX_CONTACTS = 5
const MAX_OPPORTUNITIES = 5

/** What the palette reads of a lead's answer (the API sends the contacts and opportunities whole). */
export type PaletteContact = Pick<Contact, 'id' | 'name' | 'display_name' | 'emails' | 'phones'>
export type PaletteOpportunity = Pick<Opportunity, 'id' | 'status_label' | 'value_formatted' | 'pipeline_id'>
export interface PaletteLead extends Pick<Lead, 'id' | 'display_name' | 'status_label'> {
  contacts: PaletteContact[]
  opportunities: PaletteOpportunity[]
}

const PHONE_LIKE = /^\+?[\d\s().\-/]+$/

function quoted(word: string): string {
  return `"${word.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

/** In code points, as the API counts a word for its index. */
function length(word: string): number {
  return word.match(/./gsu)?.length ?? 0
}

/**
 * The lead search for what was typed, every word quoted so that `:`, `-` or `or` are text and not the search
 * language; a phone number stays one term, as the API matches its digits. Undefined when no word is long enough.
 */
export function paletteLeadQuery(typed: string): string | undefined {
  const text = typed.trim()
  if (PHONE_LIKE.test(text)) return text.replace(/\D/g, '').length >= MIN_WORD_LENGTH ? quoted(text) : undefined
  const words = text.split(/\s+/).filter((word) => length(word) >= MIN_WORD_LENGTH)
  return words.length === 0 ? undefined : words.map(quoted).join(' ')
}

/** The query string of `GET /lead/` for a palette search: a few leads, only the fields the palette shows. */
export function paletteLeadParams(query: string) {
  return { query, _limit: PALETTE_LEADS, _fields: PALETTE_FIELDS }
}

export interface PaletteHit {
  /** Unique among the palette's items. */
  key: string
  label: string
  detail: string
  leadId: string
  /** An opportunity's, to open it on its pipeline's board. */
  opportunity?: { id: string; pipelineId: string }
}

export interface PaletteHits {
  leads: PaletteHit[]
  contacts: PaletteHit[]
  opportunities: PaletteHit[]
}

function fold(text: string): string {
  return text.toLocaleLowerCase('en-US')
}

/** Whether a contact's name, emails or phones hold every word typed (a phone number by its digits). */
function contactMatches(contact: PaletteContact, typed: string): boolean {
  const text = fold(typed.trim())
  if (PHONE_LIKE.test(text)) {
    const digits = text.replace(/\D/g, '').replace(/^0+/, '')
    return contact.phones.some((p) => p.phone.replace(/\D/g, '').includes(digits))
  }
  const haystack = fold([contact.name ?? '', ...contact.emails.map((e) => e.email)].join('\n'))
  return text.split(/\s+/).every((word) => haystack.includes(word))
}

function contactDetail(contact: PaletteContact, leadName: string): string {
  const reach = contact.emails[0]?.email ?? contact.phones[0]?.phone_formatted
  return reach === undefined ? leadName : `${reach} · ${leadName}`
}

/**
 * The palette's groups from the API's answer: the leads as found, those of their contacts that match what was typed,
 * and the leads' opportunities (an opportunity has no name of its own: it is found by its lead's and contact's).
 */
export function paletteHits(leads: readonly PaletteLead[], typed: string): PaletteHits {
  const contacts: PaletteHit[] = []
  const opportunities: PaletteHit[] = []
  for (const lead of leads) {
    for (const contact of lead.contacts) {
      if (contacts.length < MAX_CONTACTS && contactMatches(contact, typed)) {
        contacts.push({
          key: contact.id,
          label: contact.display_name || 'Unnamed contact',
          detail: contactDetail(contact, lead.display_name),
          leadId: lead.id,
        })
      }
    }
    for (const opportunity of lead.opportunities) {
      if (opportunities.length >= MAX_OPPORTUNITIES) break
      opportunities.push({
        key: opportunity.id,
        label: lead.display_name || 'Unnamed lead',
        detail: [opportunity.status_label, opportunity.value_formatted]
          .filter((t) => t !== null && t !== '')
          .join(' · '),
        leadId: lead.id,
        opportunity: { id: opportunity.id, pipelineId: opportunity.pipeline_id },
      })
    }
  }
  return {
    leads: leads.map((lead) => ({
      key: lead.id,
      label: lead.display_name || 'Unnamed lead',
      detail: lead.status_label,
      leadId: lead.id,
    })),
    contacts,
    opportunities,
  }
}

/** A screen to jump to or an action to run, as the palette lists it. */
export interface PaletteCommand {
  key: string
  label: string
  /** Other words it is found by. */
  keywords?: string
}

/** The commands each word typed begins a word of (`new` → New lead and New task; `opp` → Opportunities). */
export function matchingCommands<T extends PaletteCommand>(commands: readonly T[], typed: string): T[] {
  const words = fold(typed.trim())
    .split(/\s+/)
    .filter((w) => w !== '')
  return commands.filter((command) => {
    const own = fold(`${command.label} ${command.keywords ?? ''}`).split(/[\s/]+/)
    return words.every((word) => own.some((w) => w.startsWith(word)))
  })
}
