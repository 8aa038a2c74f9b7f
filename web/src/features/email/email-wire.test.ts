import { describe, expect, it } from 'vitest'
import { emailFixture } from './email-fixture'
import { withUtcOffsets } from './email-wire'

describe('withUtcOffsets', () => {
  it('gives the times of a create or update answer their UTC offset, and leaves others as they are', () => {
    const answered = emailFixture('a', {
      date_created: '2026-03-02T10:00:00.123000',
      date_updated: '2026-03-02T10:00:00.123000+00:00',
      activity_at: '2026-03-02T10:00:00',
      date_scheduled: '2026-03-03T09:30:00.000000',
      date_sent: null,
      send_attempts: [{ date: '2026-03-02T10:00:05.000000', error: '451 try later' }],
    })
    expect(withUtcOffsets(answered)).toEqual({
      ...answered,
      date_created: '2026-03-02T10:00:00.123000+00:00',
      date_updated: '2026-03-02T10:00:00.123000+00:00',
      activity_at: '2026-03-02T10:00:00+00:00',
      date_scheduled: '2026-03-03T09:30:00.000000+00:00',
      send_attempts: [{ date: '2026-03-02T10:00:05.000000+00:00', error: '451 try later' }],
    })
  })
})
