import { describe, expect, it } from 'vitest'
import {
  matchingCommands,
  paletteHits,
  paletteLeadParams,
  paletteLeadQuery,
  PALETTE_LEADS,
  type PaletteContact,
  type PaletteLead,
  type PaletteOpportunity,
} from './palette-search'

function contact(id: string, name: string, email?: string, phone?: string): PaletteContact {
  return {
    id,
    name,
    display_name: name,
    emails: email === undefined ? [] : [{ type: 'office', email, email_lower: email.toLowerCase() }],
    phones: phone === undefined ? [] : [{ type: 'office', phone, phone_formatted: phone, country: 'US' }],
  }
}

function opportunity(id: string, value: string | null): PaletteOpportunity {
  return { id, status_label: 'Demo', pipeline_id: 'pipe_1', value_formatted: value }
}

function lead(
  id: string,
  name: string,
  contacts: PaletteContact[] = [],
  opportunities: PaletteOpportunity[] = [],
): PaletteLead {
  return { id, display_name: name, status_label: 'Potential', contacts, opportunities }
}

describe('the lead search the palette sends', () => {
  it('quotes every word, so that the search language reads it as text', () => {
    expect(paletteLeadQuery('  olivia   pat ')).toBe('"olivia" "pat"')
    expect(paletteLeadQuery('status:won')).toBe('"status:won"')
    expect(paletteLeadQuery('say "hi"\\')).toBe('"say" "\\"hi\\"\\\\"')
    expect(paletteLeadQuery('-acme or')).toBe('"-acme"')
  })

  it('leaves out words under three characters, and searches nothing without a longer one', () => {
    expect(paletteLeadQuery('acme co')).toBe('"acme"')
    expect(paletteLeadQuery('ol')).toBeUndefined()
    expect(paletteLeadQuery('a b c')).toBeUndefined()
    expect(paletteLeadQuery('   ')).toBeUndefined()
    // Characters, not UTF-16 units: two emoji are two characters.
    expect(paletteLeadQuery('😀😀')).toBeUndefined()
    expect(paletteLeadQuery('Zoë')).toBe('"Zoë"')
  })

  it('keeps a phone number whole, once it has three digits', () => {
    expect(paletteLeadQuery('(415) 555-01')).toBe('"(415) 555-01"')
    expect(paletteLeadQuery('+1 4')).toBeUndefined()
  })

  it('asks for a few leads and only the fields shown', () => {
    expect(paletteLeadParams('"acme"')).toEqual({
      query: '"acme"',
      _limit: PALETTE_LEADS,
      _fields: 'id,display_name,status_label,contacts,opportunities',
    })
  })
})

describe('the groups of an answer', () => {
  const olivia = contact('cont_1', 'Olivia Patel', 'olivia.patel@acme.test', '+14155550101')
  const liam = contact('cont_2', 'Liam Chen', 'liam@acme.test', '+14155550102')
  const acme = lead('lead_1', 'Acme Robotics', [olivia, liam], [opportunity('oppo_1', '$1,500')])
  const blue = lead('lead_2', 'Blue Foods', [], [opportunity('oppo_2', null)])

  it('lists the leads as found, and the contacts that match by name, email or phone', () => {
    const byName = paletteHits([acme, blue], 'olivia pat')
    expect(byName.leads.map((h) => h.label)).toEqual(['Acme Robotics', 'Blue Foods'])
    expect(byName.contacts).toEqual([
      { key: 'cont_1', label: 'Olivia Patel', detail: 'olivia.patel@acme.test · Acme Robotics', leadId: 'lead_1' },
    ])
    expect(paletteHits([acme], 'LIAM@acme').contacts.map((h) => h.key)).toEqual(['cont_2'])
    expect(paletteHits([acme], '(415) 555-0102').contacts.map((h) => h.key)).toEqual(['cont_2'])
    expect(paletteHits([acme], 'robotics').contacts).toEqual([])
  })

  it('lists the leads’ opportunities, to open on their board', () => {
    const hits = paletteHits([acme, blue], 'acme')
    expect(hits.opportunities).toEqual([
      {
        key: 'oppo_1',
        label: 'Acme Robotics',
        detail: 'Demo · $1,500',
        leadId: 'lead_1',
        opportunity: { id: 'oppo_1', pipelineId: 'pipe_1' },
      },
      {
        key: 'oppo_2',
        label: 'Blue Foods',
        detail: 'Demo',
        leadId: 'lead_2',
        opportunity: { id: 'oppo_2', pipelineId: 'pipe_1' },
      },
    ])
  })

  it('keeps each group short', () => {
    const many = Array.from({ length: 8 }, (_, i) =>
      lead(
        `lead_${String(i)}`,
        `Lead ${String(i)}`,
        [contact(`cont_${String(i)}`, 'Olivia')],
        [opportunity(`oppo_${String(i)}`, null)],
      ),
    )
    const hits = paletteHits(many, 'olivia')
    expect(hits.leads).toHaveLength(8)
    expect(hits.contacts).toHaveLength(5)
    expect(hits.opportunities).toHaveLength(5)
  })
})

describe('the screens and actions that match what was typed', () => {
  const commands = [
    { key: 'a', label: 'New lead', keywords: 'create add' },
    { key: 'b', label: 'New task' },
    { key: 'c', label: 'Opportunities', keywords: 'board pipeline' },
    { key: 'd', label: 'Log a call' },
  ]

  it('lists them all before anything is typed', () => {
    expect(matchingCommands(commands, ' ')).toEqual(commands)
  })

  it('keeps those where each word typed begins one of their words, ignoring case', () => {
    expect(matchingCommands(commands, 'new').map((c) => c.key)).toEqual(['a', 'b'])
    expect(matchingCommands(commands, 'NEW le').map((c) => c.key)).toEqual(['a'])
    expect(matchingCommands(commands, 'board').map((c) => c.key)).toEqual(['c'])
    expect(matchingCommands(commands, 'call').map((c) => c.key)).toEqual(['d'])
    expect(matchingCommands(commands, 'ead')).toEqual([])
  })
})
