import { describe, expect, it } from 'vitest'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import type { Lead } from '@leadline/shared/lead-schema'
import {
  availableColumns,
  cellText,
  chosenColumns,
  nextTaskDate,
  openOpportunityValue,
  searchTerms,
  sortOf,
  withSort,
} from './lead-columns'

const field = { id: 'cf_size', name: 'Company size' } as CustomField

describe('the leads list’s columns', () => {
  it('shows the default ones when a view chose none, and the chosen ones that exist, once, in order', () => {
    const available = availableColumns([field])
    expect(chosenColumns(null, available).map((c) => c.label)).toEqual(['Status', 'Primary contact', 'Updated'])
    expect(
      chosenColumns(['custom.cf_size', 'email', 'custom.cf_gone', 'email', 'nonsense'], available).map((c) => c.label),
    ).toEqual(['Company size', 'Primary email'])
    expect(chosenColumns([], available)).toEqual([])
  })

  it('reads a lead’s cells: its first contact’s email and phone, its custom values, its open opportunities', () => {
    const lead = {
      display_name: 'Acme',
      status_label: 'Potential',
      url: null,
      description: '',
      contacts: [
        { display_name: 'Ann', emails: [], phones: [] },
        {
          display_name: 'Bo',
          emails: [{ email: 'bo@acme.example' }],
          phones: [{ phone_formatted: '+1 415 555 0100' }],
        },
      ],
      opportunities: [
        { status_type: 'active', value: 150000, value_currency: 'USD' },
        { status_type: 'won', value: 99900, value_currency: 'USD' },
        { status_type: 'active', value: 2500, value_currency: 'USD' },
        { status_type: 'active', value: null, value_currency: 'USD' },
      ],
      'custom.cf_size': 42,
      'custom.cf_tags': ['a', 'b'],
    } as unknown as Lead
    const byId = (id: string) => ({ id, label: id, sort: id })
    expect(cellText(lead, byId('contact'))).toBe('Ann')
    expect(cellText(lead, byId('email'))).toBe('bo@acme.example')
    expect(cellText(lead, byId('phone'))).toBe('+1 415 555 0100')
    expect(cellText(lead, byId('url'))).toBe('')
    expect(cellText(lead, byId('custom.cf_size'))).toBe('42')
    expect(cellText(lead, byId('custom.cf_tags'))).toBe('a, b')
    expect(cellText(lead, byId('custom.cf_none'))).toBe('')
    expect(openOpportunityValue(lead)).toBe('$1,525')
    expect(openOpportunityValue({ opportunities: [] })).toBe('')
  })
})

describe('Last activity and Next task', () => {
  it('are offered as columns', () => {
    const labels = availableColumns([]).map((c) => [c.id, c.label])
    expect(labels).toContainEqual(['last_activity', 'Last activity'])
    expect(labels).toContainEqual(['next_task', 'Next task'])
  })

  it('reads the next task’s date: the first open task with a date, as the lead lists them', () => {
    const task = (date: string, is_dateless = false, is_complete = false) => ({ date, is_dateless, is_complete })
    const lead = {
      contacts: [],
      tasks: [task('2026-03-01', true), 'not a task', task('2026-03-05T09:30:00.000000+00:00'), task('2026-03-09')],
    } as unknown as Lead
    expect(nextTaskDate(lead)).toBe('2026-03-05T09:30:00.000000+00:00')
    expect(cellText(lead, { id: 'next_task', label: 'Next task', sort: 'next_task' })).toBe(
      '2026-03-05T09:30:00.000000+00:00',
    )
    expect(nextTaskDate({ tasks: [task('2026-03-02', false, true), task('2026-03-03')] })).toBe('2026-03-03')
    // Only dateless tasks, or none: no date.
    expect(nextTaskDate({ tasks: [task('2026-03-01', true)] })).toBeNull()
    expect(
      cellText({ contacts: [], tasks: [] } as unknown as Lead, {
        id: 'next_task',
        label: 'Next task',
        sort: 'next_task',
      }),
    ).toBe('')
    // The last activity is not the lead's to say.
    expect(cellText(lead, { id: 'last_activity', label: 'Last activity', sort: 'last_activity' })).toBe('')
  })
})

describe('sorting by a header', () => {
  it('replaces the search’s sort: clauses with the header’s, keeping the rest as typed', () => {
    expect(withSort('', 'name', 'asc')).toBe('sort:name')
    expect(withSort('status:"Bad Fit" sort:-created', 'updated', 'desc')).toBe('status:"Bad Fit" sort:-updated')
    expect(withSort('name:"a sort:b" SORT:name', 'name', 'desc')).toBe('name:"a sort:b" sort:-name')
    // A sort: inside parentheses is a term of the group, not the list's order: it stays.
    expect(withSort('(a OR sort:x) b', 'created', 'asc')).toBe('(a OR sort:x) b sort:created')
  })

  it('reads which way the search sorts by a header', () => {
    expect(sortOf('acme sort:-date_updated', 'updated')).toBe('desc')
    expect(sortOf('acme sort:name sort:-created', 'name')).toBe('asc')
    expect(sortOf('acme sort:name sort:-created', 'created')).toBeUndefined()
    expect(sortOf('acme', 'name')).toBeUndefined()
    expect(sortOf('sort:-Status_Label', 'status')).toBe('desc')
    expect(sortOf('sort:email_address', 'email')).toBe('asc')
    expect(sortOf('sort:-custom.cf_AbC', 'custom.cf_AbC')).toBe('desc')
    expect(sortOf('sort:custom.cf_AbC', 'custom.cf_Other')).toBeUndefined()
  })

  it('gives every column a sort key the search language takes', () => {
    const columns = availableColumns([{ id: 'cf_Size1', name: 'Size' } as CustomField])
    expect(columns.map((c) => c.sort)).toEqual([
      'status',
      'contact_name',
      'email',
      'phone',
      'url',
      'description',
      'opportunity_value',
      'last_activity',
      'next_task',
      'created',
      'updated',
      'custom.cf_Size1',
    ])
  })

  it('splits terms in one pass, quotes and parentheses kept whole', () => {
    expect(searchTerms(' a  "b c" (d e) f:"g h" ')).toEqual(['a', '"b c"', '(d e)', 'f:"g h"'])
    expect(searchTerms('"unclosed quote here')).toEqual(['"unclosed quote here'])
    expect(searchTerms('((((a b')).toEqual(['((((a b'])
  })
})
