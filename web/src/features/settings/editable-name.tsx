import { useState, type ReactNode } from 'react'
import { Button } from '../../components/ui/button'
import { ConfirmDialog } from '../../components/ui/dialog'
import { InlineEdit } from '../../components/ui/inline-edit'
import { saveErrorMessage } from '../../lib/api'

export interface EditableNameProps {
  /** What is renamed or deleted. */
  id: string
  /** The name as it is now: the buttons say `Rename <name>` and `Delete <name>`. */
  name: string
  /** How the name reads (a heading, a badge beside it); the name itself by default. */
  display?: ReactNode
  /** The API's field of the name, whose message shows when a rename is refused. */
  field: 'name' | 'label'
  /** Other controls before Delete. */
  actions?: ReactNode
  rename: (name: string) => Promise<unknown>
  /** The delete mutation, called with `id` once the admin confirms. */
  remove: { mutate: (id: string) => void; isPending: boolean; error: unknown }
  /** What deleting does, in the confirmation: the API may still refuse it, and then says why beside the name. */
  consequence: string
}

/**
 * A pipeline's or a status's name with Rename (inline) and Delete, which asks first; the API's refusal of either
 * shows beside it.
 */
export function EditableName({
  id,
  name,
  display = name,
  field,
  actions,
  rename,
  remove,
  consequence,
}: EditableNameProps) {
  const [confirming, setConfirming] = useState(false)
  return (
    <div className="flex flex-col">
      <InlineEdit
        label="Name"
        hideLabel
        subject={name}
        editText="Rename"
        value={name}
        display={display}
        onSave={(draft) =>
          rename(draft).then(
            () => undefined,
            (error: unknown) => saveErrorMessage(error, field),
          )
        }
        actions={
          <>
            {actions}
            <Button
              size="sm"
              variant="quiet"
              tone="danger"
              isPending={remove.isPending}
              onPress={() => {
                setConfirming(true)
              }}
            >
              Delete<span className="sr-only"> {name}</span>
            </Button>
          </>
        }
      />
      <ConfirmDialog
        title={`Delete ${name}?`}
        isOpen={confirming}
        onCancel={() => {
          setConfirming(false)
        }}
        onConfirm={() => {
          setConfirming(false)
          remove.mutate(id)
        }}
      >
        {consequence}
      </ConfirmDialog>
      {remove.error === null ? null : (
        <p role="alert" className="pb-2 text-sm text-red-700">
          {saveErrorMessage(remove.error, 'id')}
        </p>
      )}
    </div>
  )
}
