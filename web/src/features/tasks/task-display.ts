import type { Task } from '@leadline/shared/task-schema'
import { formatDuration } from '../../lib/format'
import { textOf } from '../../lib/record'

// What a row shows for each task type: the few fields that matter for it. No React, so it is unit-tested.

export interface TaskDisplay {
  /** The kind, shown as a small badge ("Call", "Email"…). */
  kind: string
  title: string
  /** A second line: a preview, a number's description, a deal's note. */
  detail?: string
  /** Where the task's object lives: an opportunity's panel on the board, or a recording (https only). */
  object?: { label: string; opportunity: string } | { label: string; href: string }
}

const text = (task: Task, ...fields: string[]) => textOf(task, ...fields) ?? ''
const joined = (...parts: string[]) => parts.filter((p) => p !== '').join(' · ')

function duration(seconds: unknown): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return ''
  return formatDuration(seconds)
}

/** A recording's link, only for an https address. */
function recording(url: string, label: string): TaskDisplay['object'] {
  return url.startsWith('https://') ? { label, href: url } : undefined
}

export function taskDisplay(task: Task): TaskDisplay {
  const phone = text(task, 'phone_formatted', 'phone')
  switch (task._type) {
    case 'opportunity_due': {
      const value = text(task, 'opportunity_value_formatted')
      const status = text(task, 'opportunity_status_label')
      return {
        kind: 'Opportunity',
        title: `Opportunity due${value === '' ? '' : `: ${value}`}`,
        detail: joined(status, text(task, 'opportunity_note')) || undefined,
        object: task.object_id === null ? undefined : { label: 'Open opportunity', opportunity: task.object_id },
      }
    }
    case 'incoming_email':
      return {
        kind: 'Email',
        title: text(task, 'subject') || '(no subject)',
        detail: text(task, 'body_preview') || undefined,
      }
    case 'email_followup':
      return {
        kind: 'Follow-up',
        title: `Follow up: ${text(task, 'subject') || '(no subject)'}`,
        detail: text(task, 'body_preview') || undefined,
      }
    case 'missed_call':
      return {
        kind: 'Call',
        title: `Missed call${phone === '' ? '' : ` from ${phone}`}`,
        detail: text(task, 'phone_number_description') || undefined,
      }
    case 'answered_detached_call':
      return {
        kind: 'Call',
        title: `Call${phone === '' ? '' : ` from ${phone}`}`,
        detail: text(task, 'phone_number_description') || undefined,
        object: recording(text(task, 'recording_url'), 'Play recording'),
      }
    case 'voicemail':
      return {
        kind: 'Voicemail',
        title: `Voicemail${phone === '' ? '' : ` from ${phone}`}`,
        detail: joined(duration(task.voicemail_duration), text(task, 'phone_number_description')) || undefined,
        object: recording(text(task, 'voicemail_url'), 'Play voicemail'),
      }
    case 'incoming_sms': {
      const from = text(task, 'remote_phone_formatted', 'remote_phone')
      return {
        kind: 'SMS',
        title: `Text${from === '' ? '' : ` from ${from}`}`,
        detail: text(task, 'text') || undefined,
      }
    }
    default:
      return { kind: 'Task', title: text(task, 'text') || 'Task' }
  }
}
