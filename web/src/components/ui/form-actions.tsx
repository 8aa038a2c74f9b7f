import { Button } from './button'

export interface FormActionsProps {
  /** A failure that belongs to no one field. */
  error?: string | undefined
  submitLabel: string
  isPending: boolean
  onCancel: () => void
}

/** The end of a dialog form: its general error, then Cancel and the submit button. */
export function FormActions({ error, submitLabel, isPending, onCancel }: FormActionsProps) {
  return (
    <>
      {error === undefined ? null : (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button onPress={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" isPending={isPending}>
          {submitLabel}
        </Button>
      </div>
    </>
  )
}
