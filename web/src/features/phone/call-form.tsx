import { useQuery } from '@tanstack/react-query'
import type { Contact } from '@leadline/shared/contact-schema'
import { useId, useState, type SubmitEvent } from 'react'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { fieldStyles, labelStyles, TextField } from '../../components/ui/text-field'
import { callBodyOf, CALL_FIELDS, emptyCallDraft, type CallDraft, type CallField } from './call-draft'
import { placeErrors } from '../../lib/form-errors'
import { bindFields } from '../../lib/form-fields'
import { useLogCall } from './phone-mutations'
import { phoneQueries } from './phone-queries'
import { FieldErrorText } from '../../components/ui/field-error-text'

// The Log a call form, for calls made or taken outside Leadline; loaded when the dialog first opens.

export interface CallFormProps {
  leadId: string
  contacts: readonly Contact[]
  onDone: () => void
}

export function CallForm({ leadId, contacts, onDone }: CallFormProps) {
  // A lead with one contact is most likely that contact's call.
  const [draft, setDraft] = useState(() => emptyCallDraft(contacts.length === 1 ? (contacts[0]?.id ?? '') : ''))
  const [formErrors, setFormErrors] = useState<Partial<Record<CallField, string>>>({})
  const outcomes = useQuery(phoneQueries.outcomes())
  const logCall = useLogCall(leadId)
  const server = placeErrors(CALL_FIELDS, logCall.error)
  const errors = { ...server.beside, ...formErrors }
  const generalError = server.general

  const set = <K extends keyof CallDraft>(key: K, value: CallDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }))
  }
  const field = bindFields(draft, setDraft, errors)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const result = callBodyOf(leadId, draft)
    if (!result.ok) {
      setFormErrors(result.errors)
      return
    }
    setFormErrors({})
    logCall.mutate(result.body, { onSuccess: onDone })
  }

  const callOutcomes = (outcomes.data ?? []).filter((o) => o.applies_to.includes('calls'))
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <SelectField
          label="Contact"
          {...field('contact_id')}
          options={contacts.map((c) => ({ value: c.id, label: c.display_name || 'Unnamed contact' }))}
          emptyLabel="No contact"
        />
        <SelectField
          label="Outcome"
          {...field('outcome_id')}
          options={callOutcomes.map((o) => ({ value: o.id, label: o.name }))}
          emptyLabel={outcomes.isPending ? 'Loading outcomes…' : 'No outcome'}
          isDisabled={outcomes.isPending}
          error={errors.outcome_id ?? (outcomes.isError ? 'The outcomes could not be loaded.' : undefined)}
        />
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <fieldset className="flex flex-col gap-1">
          <legend className={labelStyles}>Direction</legend>
          <div className="flex gap-4 py-2 text-sm text-slate-800">
            {(['outbound', 'inbound'] as const).map((direction) => (
              <label key={direction} className="flex items-center gap-1.5">
                <input
                  type="radio"
                  name="direction"
                  value={direction}
                  checked={draft.direction === direction}
                  onChange={() => {
                    set('direction', direction)
                  }}
                  className="accent-indigo-600"
                />
                {direction === 'outbound' ? 'Outbound' : 'Inbound'}
              </label>
            ))}
          </div>
          {errors.direction === undefined ? null : <p className="text-sm text-red-700">{errors.direction}</p>}
        </fieldset>
        <DurationFields
          minutes={draft.minutes}
          seconds={draft.seconds}
          onChange={(key, value) => {
            set(key, value)
          }}
          error={errors.duration}
        />
      </div>
      <TextField label="Note" multiline rows={3} {...field('note')} />
      <TextField
        label="Recording URL"
        type="url"
        {...field('recording_url')}
        description="Optional: an https:// address the recording plays from."
      />
      <FormActions error={generalError} submitLabel="Log call" isPending={logCall.isPending} onCancel={onDone} />
    </form>
  )
}

interface DurationFieldsProps {
  minutes: string
  seconds: string
  onChange: (key: 'minutes' | 'seconds', value: string) => void
  error: string | undefined
}

/** Minutes and seconds side by side, one error for both. */
function DurationFields({ minutes, seconds, onChange, error }: DurationFieldsProps) {
  const id = useId()
  const errorId = `${id}-error`
  const fields = [
    { key: 'minutes', label: 'Minutes', value: minutes },
    { key: 'seconds', label: 'Seconds', value: seconds },
  ] as const
  return (
    <fieldset className="flex flex-col gap-1" aria-describedby={error === undefined ? undefined : errorId}>
      <legend className={labelStyles}>Duration</legend>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        {fields.map((field) => (
          <label key={field.key} className="flex items-center gap-1.5 text-sm text-slate-700">
            <input
              value={field.value}
              inputMode="numeric"
              placeholder="0"
              aria-invalid={error === undefined ? undefined : true}
              onChange={(event) => {
                onChange(field.key, event.target.value)
              }}
              className={fieldStyles({ width: 'w-14' })}
            />
            {field.label}
          </label>
        ))}
      </div>
      <FieldErrorText id={errorId} error={error} />
    </fieldset>
  )
}
