import { activityFixtureFields } from '../../lib/activity-fixture'
import type { CallActivity } from './call-display'
import type { SmsActivity } from './sms-display'

// Calls and messages as the API answers them, for unit tests.

const common = {
  ...activityFixtureFields,
  source: 'External' as const,
  remote_phone: '+14155550100',
  remote_phone_formatted: '+1 415-555-0100',
  remote_country_iso: 'US',
  local_phone: '+14155550199',
  local_phone_formatted: '+1 415-555-0199',
  local_country_iso: 'US',
  contact_name: 'Ann Smith',
}

export function callFixture(extra: Partial<CallActivity> = {}): CallActivity {
  return {
    ...common,
    id: 'acti_call',
    _type: 'Call',
    direction: 'outbound',
    status: 'completed',
    disposition: 'answered',
    duration: 0,
    note: null,
    phone: '+14155550100',
    recording_url: null,
    has_recording: false,
    voicemail_url: null,
    voicemail_duration: 0,
    call_method: 'external',
    outcome_id: null,
    ...extra,
  }
}

export function smsFixture(id: string, extra: Partial<SmsActivity> = {}): SmsActivity {
  return {
    ...common,
    id,
    _type: 'SMS',
    direction: 'outbound',
    status: 'sent',
    text: id,
    date_scheduled: null,
    date_sent: null,
    error_message: null,
    attachments: [],
    send_attempts: [],
    template_id: null,
    ...extra,
  }
}
