import { useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import type { LeadStatus } from '@leadline/shared/status-schema'
import { Button } from '../../components/ui/button'
import { TextField } from '../../components/ui/text-field'
import { saveErrorMessage } from '../../lib/api'
import { AddByNameForm } from './add-by-name-form'
import { SettingsFrame, useSettingsTitle } from './settings-layout'
import { settingsQueries } from './settings-queries'
import { useDeleteLeadStatus, useSaveLeadStatus } from './settings-mutations'

/** Lead statuses in the API's order; the API has no way to reorder them, so neither does this screen. */
export function LeadStatusesPage() {
  return (
    <SettingsFrame>
      <LeadStatusesPageContent />
    </SettingsFrame>
  )
}

function LeadStatusesPageContent() {
  useSettingsTitle('Lead statuses')
  const { data: statuses } = useSuspenseQuery(settingsQueries.leadStatuses())
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-bold text-slate-900">Lead statuses</h1>
        <p className="text-sm text-slate-600">Every lead has one of these statuses.</p>
      </div>
      <NewLeadStatusForm />
      <ul
        aria-label="Lead statuses"
        className="flex flex-col divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white px-4"
      >
        {statuses.map((status) => (
          <LeadStatusRow key={status.id} status={status} />
        ))}
      </ul>
    </div>
  )
}

function NewLeadStatusForm() {
  const create = useSaveLeadStatus()
  return (
    <AddByNameForm
      fieldLabel="New lead status"
      submitLabel="Add lead status"
      errorField="label"
      save={{
        mutate: (label, options) => {
          create.mutate({ id: undefined, label }, options)
        },
        isPending: create.isPending,
        isError: create.isError,
        error: create.error,
      }}
    />
  )
}

function LeadStatusRow({ status }: { status: LeadStatus }) {
  const [isEditing, setEditing] = useState(false)
  const [label, setLabel] = useState(status.label)
  const rename = useSaveLeadStatus()
  const remove = useDeleteLeadStatus()
  return (
    <li className="flex flex-col gap-2 py-2">
      {isEditing ? (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event: SubmitEvent<HTMLFormElement>) => {
            event.preventDefault()
            rename.mutate(
              { id: status.id, label },
              {
                onSuccess: () => {
                  setEditing(false)
                },
              },
            )
          }}
        >
          <TextField
            label="Label"
            value={label}
            onChange={setLabel}
            autoFocus
            error={rename.isError ? saveErrorMessage(rename.error, 'label') : undefined}
            className="w-64"
          />
          <Button type="submit" variant="primary" isPending={rename.isPending}>
            Save status
          </Button>
          <Button
            onPress={() => {
              setEditing(false)
            }}
          >
            Cancel
          </Button>
        </form>
      ) : (
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-medium text-slate-900">{status.label}</span>
          <div className="ml-auto flex gap-1">
            <Button
              size="sm"
              variant="quiet"
              onPress={() => {
                rename.reset()
                setLabel(status.label)
                setEditing(true)
              }}
            >
              Rename<span className="sr-only"> {status.label}</span>
            </Button>
            <Button
              size="sm"
              variant="quiet"
              className="text-red-700"
              isPending={remove.isPending}
              onPress={() => {
                remove.mutate(status.id)
              }}
            >
              Delete<span className="sr-only"> {status.label}</span>
            </Button>
          </div>
        </div>
      )}
      {remove.isError ? (
        <p role="alert" className="text-sm text-red-700">
          {saveErrorMessage(remove.error, 'id')}
        </p>
      ) : null}
    </li>
  )
}
