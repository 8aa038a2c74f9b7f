import type { Activity } from '@leadline/shared/activity-schema'

// What a call's timeline entry says; no React, so the rules are unit-tested.

export type CallActivity = Extract<Activity, { _type: 'Call' }>

const statusWords: Record<string, string> = {
  created: 'ringing',
  'in-progress': 'in progress',
  'no-answer': 'no answer',
  busy: 'busy',
  failed: 'failed',
  cancel: 'cancelled',
  timeout: 'timed out',
}

/** "Outbound call", "Missed call", "Voicemail", "Outbound call · no answer". */
export function callHeadline(call: CallActivity): string {
  const inbound = call.direction === 'inbound'
  if (call.voicemail_url !== null || call.disposition === 'vm-left') return inbound ? 'Voicemail' : 'Left a voicemail'
  const unanswered = call.status === 'no-answer' || call.disposition === 'no-answer'
  if (inbound && unanswered) return 'Missed call'
  const status = statusWords[call.status]
  return `${inbound ? 'Inbound' : 'Outbound'} call${status === undefined ? '' : ` · ${status}`}`
}

/** The other party: the contact's name and number, or whichever of them is known. */
export function callParty(call: CallActivity): string | undefined {
  const phone = call.remote_phone_formatted ?? call.remote_phone ?? call.phone
  if (call.contact_name !== null && call.contact_name !== '') {
    return phone === null ? call.contact_name : `${call.contact_name} (${phone})`
  }
  return phone ?? undefined
}

/** An address the page may play: https only, so a stored `http:` or `javascript:` URL never loads. */
export function playableUrl(url: string | null): string | undefined {
  if (url === null) return undefined
  try {
    return new URL(url).protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}
