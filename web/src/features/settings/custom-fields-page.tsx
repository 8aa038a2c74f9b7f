import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import {
  CUSTOM_FIELD_TYPES,
  type CustomField,
  type CustomFieldType,
  type CustomObjectType,
} from '@leadline/shared/custom-field-schema'
import { Button } from '../../components/ui/button'
import { CardSection } from '../../components/ui/card-section'
import { CheckboxField } from '../../components/ui/checkbox-field'
import { ConfirmDialog, Dialog } from '../../components/ui/dialog'
import { FieldErrorText } from '../../components/ui/field-error-text'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { saveErrorMessage } from '../../lib/api'
import { placeErrors } from '../../lib/form-errors'
import { setupQueries } from '../leads/lead-queries'
import {
  customFieldUsageQuery,
  useDeleteCustomField,
  useReorderCustomFields,
  useSaveCustomField,
  type CustomFieldBody,
} from './custom-fields-mutations'
import { settingsPage, SettingsScreen } from './settings-layout'
import { SortableList } from './sortable-list'

const TYPE_LABELS: Record<CustomFieldType, string> = {
  text: 'Text',
  textarea: 'Long text',
  number: 'Number',
  date: 'Date',
  datetime: 'Date and time',
  choices: 'Choices',
  user: 'User',
  contact: 'Contact',
  hidden: 'Hidden (API only)',
}
const TYPE_OPTIONS = CUSTOM_FIELD_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] }))
const typeOf = (value: string): CustomFieldType => CUSTOM_FIELD_TYPES.find((t) => t === value) ?? 'text'

const SECTIONS: { objectType: CustomObjectType; title: string; noun: string }[] = [
  { objectType: 'lead', title: 'Lead fields', noun: 'lead field' },
  { objectType: 'contact', title: 'Contact fields', noun: 'contact field' },
  { objectType: 'opportunity', title: 'Opportunity fields', noun: 'opportunity field' },
]

/** The organization's custom fields of leads, contacts and opportunities, in the order forms show them. */
export const CustomFieldsPage = settingsPage(CustomFieldsPageContent)

function CustomFieldsPageContent() {
  return (
    <SettingsScreen
      title="Custom fields"
      description="What else your team records about leads, contacts and opportunities, in the order the forms show it."
    >
      {SECTIONS.map((section) => (
        <FieldsSection key={section.objectType} {...section} />
      ))}
    </SettingsScreen>
  )
}

function FieldsSection({ objectType, title, noun }: { objectType: CustomObjectType; title: string; noun: string }) {
  const { data: fields } = useSuspenseQuery(setupQueries.customFields(objectType))
  const reorder = useReorderCustomFields(objectType, `the ${noun}s`)
  const [adding, setAdding] = useState(false)
  const headingId = `${objectType}-fields-heading`
  return (
    <CardSection
      headingId={headingId}
      title={title}
      actions={
        <Button
          variant="primary"
          onPress={() => {
            setAdding(true)
          }}
        >
          Add {noun}
        </Button>
      }
    >
      {fields.length === 0 ? (
        <p className="text-sm text-slate-600">No {noun}s yet.</p>
      ) : (
        <SortableList
          items={fields.map((field) => ({ ...field, label: field.name }))}
          label={title}
          place={`the ${noun}s`}
          onReorder={(ordered) => {
            reorder.mutate(ordered)
          }}
        >
          {(field) => <FieldRow field={field} objectType={objectType} noun={noun} />}
        </SortableList>
      )}
      {adding ? (
        <FieldDialog
          objectType={objectType}
          title={`Add ${noun}`}
          submitLabel={`Add ${noun}`}
          field={undefined}
          onClose={() => {
            setAdding(false)
          }}
        />
      ) : null}
    </CardSection>
  )
}

function FieldRow({ field, objectType, noun }: { field: CustomField; objectType: CustomObjectType; noun: string }) {
  const [editing, setEditing] = useState(false)
  const [deleting, setDeleting] = useState(false)
  const details = [
    TYPE_LABELS[field.type],
    field.accepts_multiple_values ? 'multiple values' : undefined,
    field.choices === null ? undefined : field.choices.join(', '),
  ].filter((part) => part !== undefined)
  return (
    <div className="flex min-w-0 flex-1 flex-wrap items-center justify-between gap-2 py-1">
      <div className="flex min-w-0 flex-col">
        <span className="font-medium text-slate-900">{field.name}</span>
        <span className="truncate text-sm text-slate-600">{details.join(' · ')}</span>
      </div>
      <div className="flex gap-1">
        <Button
          size="sm"
          variant="quiet"
          onPress={() => {
            setEditing(true)
          }}
        >
          Edit<span className="sr-only"> {field.name}</span>
        </Button>
        <Button
          size="sm"
          variant="quiet"
          tone="danger"
          onPress={() => {
            setDeleting(true)
          }}
        >
          Delete<span className="sr-only"> {field.name}</span>
        </Button>
      </div>
      {editing ? (
        <FieldDialog
          objectType={objectType}
          title={`Edit ${field.name}`}
          submitLabel="Save field"
          field={field}
          onClose={() => {
            setEditing(false)
          }}
        />
      ) : null}
      {deleting ? (
        <DeleteFieldDialog
          field={field}
          objectType={objectType}
          noun={noun}
          onClose={() => {
            setDeleting(false)
          }}
        />
      ) : null}
    </div>
  )
}

/** Asks first, saying how many values go with the field (the API counts them when the dialog opens). */
function DeleteFieldDialog({
  field,
  objectType,
  noun,
  onClose,
}: {
  field: CustomField
  objectType: CustomObjectType
  noun: string
  onClose: () => void
}) {
  const usage = useQuery(customFieldUsageQuery(objectType, field.id))
  const remove = useDeleteCustomField(objectType)
  const values = usage.data?.values
  const consequence =
    values === undefined
      ? usage.isError
        ? `Deleting ${field.name} removes all its values.`
        : `Counting the values of ${field.name}…`
      : values === 0
        ? `No ${objectType} holds a value of ${field.name}.`
        : `Deleting ${field.name} removes its ${values.toLocaleString()} value${values === 1 ? '' : 's'}.`
  return (
    <ConfirmDialog
      title={`Delete the ${noun} ${field.name}?`}
      isOpen
      onCancel={onClose}
      isPending={remove.isPending}
      onConfirm={() => {
        remove.mutate(field.id, { onSuccess: onClose })
      }}
    >
      {consequence} This cannot be undone.
      {remove.error === null ? null : (
        <span role="alert" className="mt-2 block text-red-700">
          {saveErrorMessage(remove.error, 'id')}
        </span>
      )}
    </ConfirmDialog>
  )
}

const FORM_FIELDS = ['name', 'description', 'type', 'choices', 'accepts_multiple_values'] as const

/** Adds a field (`field` undefined) or changes one: its name, description, type, choices and multiple values. */
function FieldDialog({
  objectType,
  title,
  submitLabel,
  field,
  onClose,
}: {
  objectType: CustomObjectType
  title: string
  submitLabel: string
  field: CustomField | undefined
  onClose: () => void
}) {
  const save = useSaveCustomField(objectType)
  const [name, setName] = useState(field?.name ?? '')
  const [description, setDescription] = useState(field?.description ?? '')
  const [type, setType] = useState<CustomFieldType>(field?.type ?? 'text')
  const [multiple, setMultiple] = useState(field?.accepts_multiple_values ?? false)
  const [choices, setChoices] = useState<string[]>(field?.choices ?? [])
  const { beside, general } = placeErrors(FORM_FIELDS, save.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const body: CustomFieldBody = {
      name,
      description: description.trim() === '' ? null : description,
      type,
      choices: type === 'choices' ? choices : null,
      accepts_multiple_values: multiple,
    }
    save.mutate({ id: field?.id, body }, { onSuccess: onClose })
  }
  return (
    <Dialog
      title={title}
      isOpen
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
      isDismissable={false}
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <TextField label="Name" value={name} onChange={setName} autoFocus isRequired error={beside.name} />
        <TextField
          label="Description"
          value={description}
          onChange={setDescription}
          multiline
          rows={2}
          error={beside.description}
        />
        <SelectField
          label="Type"
          value={type}
          options={TYPE_OPTIONS}
          onChange={(value) => {
            setType(typeOf(value))
          }}
          error={beside.type}
        />
        {type === 'choices' ? (
          <ChoicesEditor choices={choices} onChange={setChoices} error={beside.choices} />
        ) : beside.choices === undefined ? null : (
          <p role="alert" className="text-sm text-red-700">
            {beside.choices}
          </p>
        )}
        <CheckboxField
          label="Accepts multiple values"
          checked={multiple}
          onChange={setMultiple}
          {...(beside.accepts_multiple_values === undefined ? {} : { error: beside.accepts_multiple_values })}
        />
        <FormActions error={general} submitLabel={submitLabel} isPending={save.isPending} onCancel={onClose} />
      </form>
    </Dialog>
  )
}

/** A choices field's choices in order: added, removed and moved with buttons, all by keyboard. */
function ChoicesEditor({
  choices,
  onChange,
  error,
}: {
  choices: string[]
  onChange: (choices: string[]) => void
  error: string | undefined
}) {
  const [draft, setDraft] = useState('')
  const errorId = 'choices-error'
  const move = (from: number, to: number) => {
    const next = [...choices]
    const [moved] = next.splice(from, 1)
    if (moved === undefined) return
    next.splice(to, 0, moved)
    onChange(next)
  }
  const add = () => {
    const choice = draft.trim()
    if (choice === '') return
    onChange([...choices, choice])
    setDraft('')
  }
  return (
    <fieldset className="flex flex-col gap-2" aria-describedby={error === undefined ? undefined : errorId}>
      <legend className="text-sm font-medium text-slate-700">Choices</legend>
      {choices.length === 0 ? <p className="text-sm text-slate-600">No choices yet.</p> : null}
      <ol aria-label="Choices" className="flex flex-col divide-y divide-slate-100">
        {choices.map((choice, index) => (
          <li key={`${choice}-${String(index)}`} className="flex items-center justify-between gap-2 py-1">
            <span className="text-sm text-slate-900">{choice}</span>
            <span className="flex gap-1">
              <Button
                size="sm"
                variant="quiet"
                isDisabled={index === 0}
                onPress={() => {
                  move(index, index - 1)
                }}
              >
                Up<span className="sr-only"> {choice}</span>
              </Button>
              <Button
                size="sm"
                variant="quiet"
                isDisabled={index === choices.length - 1}
                onPress={() => {
                  move(index, index + 1)
                }}
              >
                Down<span className="sr-only"> {choice}</span>
              </Button>
              <Button
                size="sm"
                variant="quiet"
                tone="danger"
                onPress={() => {
                  onChange(choices.filter((_, i) => i !== index))
                }}
              >
                Remove<span className="sr-only"> {choice}</span>
              </Button>
            </span>
          </li>
        ))}
      </ol>
      <div className="flex items-end gap-2">
        <TextField label="New choice" value={draft} onChange={setDraft} className="flex-1" />
        <Button onPress={add}>Add choice</Button>
      </div>
      <FieldErrorText id={errorId} error={error} />
    </fieldset>
  )
}
