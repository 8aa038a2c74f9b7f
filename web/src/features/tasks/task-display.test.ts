import { describe, expect, it } from 'vitest'
import type { Task } from '@leadline/shared/task-schema'
import { taskDisplay } from './task-display'
import { taskFixture } from './task-fixture'

const of = (type: string, fields: Record<string, unknown>): Task => ({
  ...taskFixture('noti_1', '2026-11-26', { _type: type, object_id: 'x' }),
  ...fields,
})

describe('taskDisplay', () => {
  it('shows each type by what matters for it', () => {
    expect(taskDisplay(of('lead', { text: 'Call back' }))).toEqual({ kind: 'Task', title: 'Call back' })
    expect(
      taskDisplay(
        of('opportunity_due', {
          object_id: 'oppo_1',
          opportunity_value_formatted: '$1,200',
          opportunity_status_label: 'Proposal',
          opportunity_note: 'Renewal',
        }),
      ),
    ).toEqual({
      kind: 'Opportunity',
      title: 'Opportunity due: $1,200',
      detail: 'Proposal · Renewal',
      object: { label: 'Open opportunity', opportunity: 'oppo_1' },
    })
    expect(taskDisplay(of('incoming_email', { subject: 'Pricing', body_preview: 'Hi there' }))).toMatchObject({
      kind: 'Email',
      title: 'Pricing',
      detail: 'Hi there',
    })
    expect(taskDisplay(of('email_followup', { subject: '' })).title).toBe('Follow up: (no subject)')
    expect(
      taskDisplay(of('missed_call', { phone_formatted: '+1 415-555-0100', phone_number_description: 'Main line' })),
    ).toMatchObject({ title: 'Missed call from +1 415-555-0100', detail: 'Main line' })
    expect(
      taskDisplay(of('voicemail', { phone: '+14155550100', voicemail_duration: 75, voicemail_url: 'https://v/1.mp3' })),
    ).toMatchObject({
      title: 'Voicemail from +14155550100',
      detail: '1:15',
      object: { label: 'Play voicemail', href: 'https://v/1.mp3' },
    })
    expect(
      taskDisplay(of('incoming_sms', { remote_phone_formatted: '+44 20 7946 0000', text: 'Call me' })),
    ).toMatchObject({ kind: 'SMS', title: 'Text from +44 20 7946 0000', detail: 'Call me' })
  })

  it('links only https recordings', () => {
    const call = taskDisplay(of('answered_detached_call', { recording_url: 'http://insecure/1.mp3' }))
    expect(call.object).toBeUndefined()
    expect(call.title).toBe('Call')
  })
})
