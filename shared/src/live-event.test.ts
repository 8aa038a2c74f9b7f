import { describe, expect, it } from 'vitest'
import { isLiveEvent, liveEventOf } from './live-event.js'

const base = {
  id: 'ev_1',
  object_id: 'oppo_1',
  action: 'updated',
  lead_id: 'lead_1',
  user_id: 'user_1',
  request_id: 'req_1',
  api_key_id: 'key_1',
  organization_id: 'orga_1',
  date_created: '2026-03-01T12:00:00.000000+00:00',
  date_updated: '2026-03-01T12:00:00.000000+00:00',
  changed_fields: ['status_id'],
}

describe('liveEventOf', () => {
  it('keeps what tells which screens to refresh and drops the data', () => {
    const task = {
      ...base,
      object_type: 'task.lead',
      object_id: 'task_1',
      data: { id: 'task_1', text: 'Secret plans' },
      previous_data: {},
    }
    const live = liveEventOf(task)
    expect(live).toEqual({
      id: 'ev_1',
      object_type: 'task.lead',
      object_id: 'task_1',
      action: 'updated',
      lead_id: 'lead_1',
      user_id: 'user_1',
      date_created: base.date_created,
    })
    expect(JSON.stringify(live)).not.toContain('Secret')
    expect(isLiveEvent(live)).toBe(true)
  })

  it('adds an opportunity’s pipeline and statuses, the previous one only when it changed', () => {
    const moved = {
      ...base,
      object_type: 'opportunity',
      data: { pipeline_id: 'pipe_1', status_id: 'stat_b', value: 100 },
      previous_data: { status_id: 'stat_a' },
    }
    expect(liveEventOf(moved)).toMatchObject({
      pipeline_id: 'pipe_1',
      status_id: 'stat_b',
      previous_status_id: 'stat_a',
    })
    const edited = liveEventOf({ ...moved, previous_data: { value: 50 } })
    expect(edited).toMatchObject({ pipeline_id: 'pipe_1', status_id: 'stat_b' })
    expect(edited).not.toHaveProperty('previous_status_id')
    expect(edited).not.toHaveProperty('value')
  })

  it('reads a deleted opportunity’s pipeline and status from its last state, data being null as in Close', () => {
    const deleted = {
      ...base,
      object_type: 'opportunity',
      action: 'deleted',
      changed_fields: [],
      data: null,
      previous_data: { id: 'oppo_1', pipeline_id: 'pipe_1', status_id: 'stat_b', value: 100 },
      meta: { request_method: 'DELETE', request_path: '/api/v1/opportunity/oppo_1/' },
    }
    const live = liveEventOf(deleted)
    expect(live).toEqual({
      id: 'ev_1',
      object_type: 'opportunity',
      object_id: 'oppo_1',
      action: 'deleted',
      lead_id: 'lead_1',
      user_id: 'user_1',
      date_created: base.date_created,
      pipeline_id: 'pipe_1',
      status_id: 'stat_b',
    })
    expect(isLiveEvent(live)).toBe(true)
  })

  it('adds whose membership changed and its status, without the member’s address', () => {
    const deactivated = {
      ...base,
      object_type: 'membership',
      object_id: 'memb_1',
      lead_id: null,
      data: { id: 'memb_1', user_id: 'user_2', status: 'inactive', role_id: 'user', email: 'rey@example.com' },
      previous_data: { status: 'active' },
    }
    const live = liveEventOf(deactivated)
    expect(live).toMatchObject({
      object_type: 'membership',
      member_user_id: 'user_2',
      member_status: 'inactive',
      member_role: 'user',
    })
    expect(JSON.stringify(live)).not.toContain('rey@')
    expect(liveEventOf({ ...base, object_type: 'lead', data: { user_id: 'user_2' } })).not.toHaveProperty(
      'member_user_id',
    )
  })

  it('answers undefined for what is not an event', () => {
    expect(liveEventOf(null)).toBeUndefined()
    expect(liveEventOf([])).toBeUndefined()
    expect(liveEventOf({ ...base, object_type: 3 })).toBeUndefined()
    expect(liveEventOf({ ...base, object_type: 'lead', date_created: undefined })).toBeUndefined()
    expect(isLiveEvent({ id: 'ev_1' })).toBe(false)
  })
})
