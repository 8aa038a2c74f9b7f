// The Log a call form's draft (text as typed) and the body it posts; no React, so the rules are unit-tested.

export type CallDirection = 'outbound' | 'inbound'

export interface CallDraft {
  /** Empty: no contact. */
  contact_id: string
  direction: CallDirection
  /** Empty: no outcome. */
  outcome_id: string
  minutes: string
  seconds: string
  note: string
  recording_url: string
}

/** The body of `POST /activity/call/`, as the API names its fields. */
export interface CallBody {
  lead_id: string
  direction: CallDirection
  contact_id?: string
  outcome_id?: string
  /** Seconds. */
  duration?: number
  note?: string
  recording_url?: string
}

/** The fields the form shows errors beside; the API's errors on any other field are shown under the form. */
export const CALL_FIELDS = ['contact_id', 'direction', 'outcome_id', 'duration', 'note', 'recording_url'] as const
export type CallField = (typeof CALL_FIELDS)[number]

export function emptyCallDraft(contactId = ''): CallDraft {
  return {
    contact_id: contactId,
    direction: 'outbound',
    outcome_id: '',
    minutes: '',
    seconds: '',
    note: '',
    recording_url: '',
  }
}

export type CallBodyResult = { ok: true; body: CallBody } | { ok: false; errors: Partial<Record<CallField, string>> }

const WHOLE = /^\d{1,6}$/

/**
 * Checks the duration (whole minutes, and seconds from 0 to 59; both empty is no duration) and writes the body.
 * Everything else is the API's to check, the recording URL's `https://` included, so its words are the ones shown.
 */
export function callBodyOf(leadId: string, draft: CallDraft): CallBodyResult {
  const minutes = draft.minutes.trim()
  const seconds = draft.seconds.trim()
  if ((minutes !== '' && !WHOLE.test(minutes)) || (seconds !== '' && !WHOLE.test(seconds))) {
    return { ok: false, errors: { duration: 'Enter whole minutes and seconds.' } }
  }
  if (Number(seconds) > 59) return { ok: false, errors: { duration: 'Seconds go from 0 to 59.' } }

  const body: CallBody = { lead_id: leadId, direction: draft.direction }
  if (draft.contact_id !== '') body.contact_id = draft.contact_id
  if (draft.outcome_id !== '') body.outcome_id = draft.outcome_id
  if (minutes !== '' || seconds !== '') body.duration = Number(minutes) * 60 + Number(seconds)
  if (draft.note.trim() !== '') body.note = draft.note
  const recording = draft.recording_url.trim()
  if (recording !== '') body.recording_url = recording
  return { ok: true, body }
}
