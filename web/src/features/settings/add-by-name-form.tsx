import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { TextField } from '../../components/ui/text-field'
import { saveErrorMessage } from '../../lib/api'

/**
 * A one-field form that adds something by its name (a pipeline, a lead status): the field empties once it is saved,
 * and the API's refusal shows under it.
 */
export function AddByNameForm({
  fieldLabel,
  submitLabel,
  errorField,
  save,
}: {
  fieldLabel: string
  submitLabel: string
  /** The API's field whose message the error shows. */
  errorField: string
  save: {
    mutate: (name: string, options: { onSuccess: () => void }) => void
    isPending: boolean
    isError: boolean
    error: unknown
  }
}) {
  const [name, setName] = useState('')
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      onSubmit={(event: SubmitEvent<HTMLFormElement>) => {
        event.preventDefault()
        save.mutate(name, {
          onSuccess: () => {
            setName('')
          },
        })
      }}
    >
      <TextField
        label={fieldLabel}
        value={name}
        onChange={setName}
        error={save.isError ? saveErrorMessage(save.error, errorField) : undefined}
        className="w-72"
      />
      <Button type="submit" variant="primary" isPending={save.isPending}>
        {submitLabel}
      </Button>
    </form>
  )
}
