import type { Address, Lead } from '@leadline/shared/lead-schema'
import { useRef, useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { saveErrors } from '../../lib/form-errors'
import { newRowKey, useRemovalFocus } from '../../lib/row-keys'
import { useUpdateLead } from './lead-queries'

// The addresses' editor, loaded when someone edits them: the lead page's first visit carries only the display.

// Not ADDRESS_LABELS from shared: importing a value from a schema module bundles TypeBox (~40 KB gzipped).
const ADDRESS_LABELS = ['business', 'mailing', 'other'] as const satisfies readonly Address['label'][]

type AddressDraft = Record<Exclude<keyof Address, 'label'>, string> & {
  label: Address['label']
  /** Stays with the address while others are added and removed. */
  key: string
}

const blank = (): AddressDraft => ({
  key: newRowKey(),
  label: 'business',
  address_1: '',
  address_2: '',
  city: '',
  state: '',
  zipcode: '',
  country: '',
})

const parts: { key: Exclude<keyof Address, 'label'>; label: string }[] = [
  { key: 'address_1', label: 'Street' },
  { key: 'address_2', label: 'Street, line 2' },
  { key: 'city', label: 'City' },
  { key: 'state', label: 'State' },
  { key: 'zipcode', label: 'ZIP' },
  { key: 'country', label: 'Country code' },
]

function draftOf(address: Address): AddressDraft {
  return {
    key: newRowKey(),
    label: address.label,
    address_1: address.address_1 ?? '',
    address_2: address.address_2 ?? '',
    city: address.city ?? '',
    state: address.state ?? '',
    zipcode: address.zipcode ?? '',
    country: address.country ?? '',
  }
}

function addressOf(draft: AddressDraft): Address {
  const text = (value: string) => (value.trim() === '' ? null : value.trim())
  return {
    label: draft.label,
    address_1: text(draft.address_1),
    address_2: text(draft.address_2),
    city: text(draft.city),
    state: text(draft.state),
    zipcode: text(draft.zipcode),
    country: text(draft.country),
  }
}

export function AddressesForm({ lead, onDone }: { lead: Lead; onDone: () => void }) {
  const [drafts, setDrafts] = useState(() => lead.addresses.map(draftOf))
  const updateLead = useUpdateLead(lead.id)
  const { fieldErrors, generalError } = saveErrors(updateLead.error)

  const removal = useRemovalFocus()
  const addButton = useRef<HTMLButtonElement>(null)

  const set = (draftKey: string, key: Exclude<keyof AddressDraft, 'key'>, value: string) => {
    setDrafts((all) => all.map((d) => (d.key === draftKey ? { ...d, [key]: value } : d)))
  }

  const remove = (index: number) => {
    const draftKey = drafts[index]?.key
    removal.removing(
      drafts.map((d) => d.key),
      index,
      addButton.current,
    )
    setDrafts((all) => all.filter((d) => d.key !== draftKey))
  }

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    updateLead.mutate({ addresses: drafts.map(addressOf) }, { onSuccess: onDone })
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      {drafts.map((draft, index) => (
        <fieldset key={draft.key} className="flex flex-col gap-3 rounded-md border border-slate-200 p-3">
          <legend className="px-1 text-sm font-semibold text-slate-900">Address {index + 1}</legend>
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
            <SelectField
              label="Kind"
              value={draft.label}
              options={ADDRESS_LABELS.map((l) => ({ value: l, label: `${l.charAt(0).toUpperCase()}${l.slice(1)}` }))}
              onChange={(value) => {
                set(draft.key, 'label', value)
              }}
              error={fieldErrors[`addresses.${index}.label`]}
            />
            {parts.map(({ key, label }) => (
              <TextField
                key={key}
                label={label}
                value={draft[key]}
                onChange={(value) => {
                  set(draft.key, key, value)
                }}
                error={fieldErrors[`addresses.${index}.${key}`]}
              />
            ))}
          </div>
          <Button
            ref={removal.ref(draft.key)}
            size="sm"
            variant="quiet"
            tone="danger"
            className="w-fit"
            onPress={() => {
              remove(index)
            }}
          >
            {`Remove address ${index + 1}`}
          </Button>
        </fieldset>
      ))}
      <Button
        ref={addButton}
        size="sm"
        className="w-fit"
        onPress={() => {
          setDrafts((all) => [...all, blank()])
        }}
      >
        Add address
      </Button>
      <FormActions
        error={generalError}
        submitLabel="Save addresses"
        isPending={updateLead.isPending}
        onCancel={onDone}
      />
    </form>
  )
}
