import { type ReactNode, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { TextField } from '../../components/ui/text-field'
import { placeErrors } from '../../lib/form-errors'
import { useFormValue } from '../../lib/form-value'

/** What the form sends with: a mutation's state as TanStack Query keeps it. */
interface Sending {
  isPending: boolean
  error: Error | null
  reset: () => void
}

/**
 * A form of one field and its button (an API key, an email, a new password): the value goes to `onSubmit` trimmed
 * (`trim`) or as typed, never empty; the API's refusal shows under the field, whichever field it names.
 */
export function OneFieldForm({
  field,
  label,
  type,
  autoComplete,
  description,
  trim = false,
  sending,
  submitLabel,
  onSubmit,
  children,
}: {
  field: string
  label: string
  type: 'email' | 'password'
  autoComplete: string
  description?: string
  trim?: boolean
  sending: Sending
  submitLabel: string
  onSubmit: (value: string) => void
  /** Shown above the field. */
  children?: ReactNode
}) {
  const input = useFormValue('', sending)
  const { beside, general } = placeErrors([field], sending.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const sent = trim ? input.value.trim() : input.value
    if (sent !== '') onSubmit(sent)
  }
  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      {children}
      <TextField
        label={label}
        type={type}
        name={field}
        autoComplete={autoComplete}
        {...input.field}
        isRequired
        error={beside[field] ?? general}
        description={description}
      />
      <Button type="submit" variant="primary" isPending={sending.isPending}>
        {submitLabel}
      </Button>
    </form>
  )
}
