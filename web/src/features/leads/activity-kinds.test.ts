import { activitySchema } from '@leadline/shared/activity-schema'
import { describe, expect, it } from 'vitest'
import { ACTIVITY_KINDS, activityTypesOf, leadPageSearchOf } from './activity-kinds'

describe('leadPageSearchOf', () => {
  it('keeps each kind the timeline offers', () => {
    for (const { kind } of ACTIVITY_KINDS)
      expect(leadPageSearchOf({ activity: kind })).toStrictEqual({ activity: kind })
  })

  it('turns anything else into All, overwriting the raw param', () => {
    for (const activity of ['all', 'Notes', 'note', '', 'constructor', 'toString', 3, ['notes'], null, undefined]) {
      expect(leadPageSearchOf({ activity }), String(activity)).toStrictEqual({ activity: undefined })
    }
    expect(leadPageSearchOf({})).toStrictEqual({ activity: undefined })
  })
})

describe('the activity kinds', () => {
  it('ask the API for their types, and All for none', () => {
    expect(activityTypesOf(undefined)).toBeUndefined()
    expect(activityTypesOf('notes')).toBe('Note')
    expect(activityTypesOf('status')).toBe('LeadStatusChange')
    expect(activityTypesOf('tasks')).toBe('TaskCompleted')
    expect(activityTypesOf('opportunities')).toBe('OpportunityStatusChange')
  })

  it('have unique kinds, labels and empty states, and cover every type but Created between them once', () => {
    for (const field of ['kind', 'label', 'empty'] as const) {
      expect(new Set(ACTIVITY_KINDS.map((k) => k[field])).size, field).toBe(ACTIVITY_KINDS.length)
    }
    const covered = ACTIVITY_KINDS.flatMap((k) => [...k.types])
    expect(new Set(covered).size).toBe(covered.length)
    const known = activitySchema.anyOf.map((schema) => schema.properties._type.const)
    expect([...covered].sort()).toEqual(known.filter((t) => t !== 'Created').sort())
  })
})
