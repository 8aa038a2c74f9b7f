import { Type, type Static } from '@sinclair/typebox'
import { CALL_STATUSES } from '../../crm/activities/activity-repo.js'

// The bodies the telephony side POSTs (decision 0027). Fields not listed are ignored, as in every body.

/** Close's call dispositions. */
export const CALL_DISPOSITIONS = [
  'answered',
  'no-answer',
  'busy',
  'vm-answer',
  'vm-left',
  'blocked',
  'error',
  'abandoned',
] as const

const providerId = Type.String({ minLength: 1, maxLength: 255, description: "The telephony side's own id." })
const phone = (description: string) => Type.String({ minLength: 1, maxLength: 64, description })
const remotePhone = phone('The other party, in E.164 (a national number is read in the organization’s country).')
const localPhone = phone('The organization’s number that took the message or call: one of its `/phone_number/`s.')
const httpsUrl = (description: string) => Type.String({ minLength: 1, maxLength: 2000, description })
const seconds = Type.Integer({ minimum: 0, maximum: 1_000_000 })

export const inboundSmsBody = Type.Object({
  id: providerId,
  remote_phone: remotePhone,
  local_phone: localPhone,
  text: Type.String({ maxLength: 10_000 }),
  attachments: Type.Optional(
    Type.Array(
      Type.Object({
        url: httpsUrl('`https://` only.'),
        filename: Type.String({ maxLength: 500 }),
        content_type: Type.String({ maxLength: 200 }),
        size: Type.Optional(
          Type.Union([Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 }), Type.Null()], { description: 'Bytes.' }),
        ),
      }),
      { maxItems: 20 },
    ),
  ),
  date: Type.Optional(Type.String({ maxLength: 64, description: 'When it was received (ISO 8601); default now.' })),
})
export type InboundSmsBody = Static<typeof inboundSmsBody>

export const inboundCallBody = Type.Object({
  id: providerId,
  direction: Type.Optional(Type.Union([Type.Literal('inbound'), Type.Literal('outbound')], { default: 'inbound' })),
  status: Type.Union(
    CALL_STATUSES.map((s) => Type.Literal(s)),
    { description: CALL_STATUSES.join(', ') },
  ),
  disposition: Type.Optional(
    Type.Union([...CALL_DISPOSITIONS.map((d) => Type.Literal(d)), Type.Null()], {
      description: CALL_DISPOSITIONS.join(', '),
    }),
  ),
  remote_phone: remotePhone,
  local_phone: localPhone,
  duration: Type.Optional(seconds),
  recording_url: Type.Optional(Type.Union([httpsUrl('`https://` only.'), Type.Null()])),
  voicemail_url: Type.Optional(Type.Union([httpsUrl('`https://` only.'), Type.Null()])),
  voicemail_duration: Type.Optional(seconds),
  user_id: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'The member on the call; default the owner of `local_phone`.',
    }),
  ),
})
export type InboundCallBody = Static<typeof inboundCallBody>

/** What both endpoints answer: the activity stored or updated, its lead, and the task made (null when none). */
export const inboundAnswer = Type.Object({
  activity_id: Type.String(),
  lead_id: Type.String(),
  task_id: Type.Union([Type.String(), Type.Null()]),
})
export type InboundAnswer = Static<typeof inboundAnswer>
