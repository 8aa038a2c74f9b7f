import { useSuspenseQuery } from '@tanstack/react-query'
import type { Outcome } from '@leadline/shared/outcome-schema'
import { authQueries } from '../auth/auth-queries'
import { phoneQueries } from '../phone/phone-queries'
import { AddByNameForm } from './add-by-name-form'
import { EditableName } from './editable-name'
import { useDeleteOutcome, useReorderOutcomes, useSaveOutcome } from './organization-mutations'
import { settingsPage, SettingsScreen } from './settings-layout'
import { SortableList } from './sortable-list'

/** What came of a call, in the order the call form offers them. */
export const CallOutcomesPage = settingsPage(CallOutcomesPageContent)

function CallOutcomesPageContent() {
  const { data: outcomes } = useSuspenseQuery(phoneQueries.outcomes())
  const { data: session } = useSuspenseQuery(authQueries.session())
  const reorder = useReorderOutcomes()
  // The sortable list names its items by `label`.
  const items = outcomes.map((outcome) => ({ ...outcome, label: outcome.name }))
  return (
    <SettingsScreen
      title="Call outcomes"
      description="What came of a call or a meeting. Reps pick one when they log a call, from this list in this order."
    >
      <NewOutcomeForm />
      {items.length === 0 ? (
        <p className="text-sm text-slate-500">No call outcomes yet.</p>
      ) : (
        <div className="rounded-lg border border-slate-200 bg-white px-4">
          <SortableList
            items={items}
            label="Call outcomes"
            place="the call outcomes"
            onReorder={(ordered) => {
              reorder.mutate({ organizationId: session.organization.id, outcomes: ordered })
            }}
          >
            {(outcome) => <OutcomeRow outcome={outcome} />}
          </SortableList>
        </div>
      )}
    </SettingsScreen>
  )
}

function NewOutcomeForm() {
  const create = useSaveOutcome()
  return (
    <AddByNameForm
      fieldLabel="New call outcome"
      submitLabel="Add call outcome"
      errorField="name"
      save={{
        mutate: (name, options) => {
          create.mutate({ id: undefined, name }, options)
        },
        isPending: create.isPending,
        isError: create.isError,
        error: create.error,
      }}
    />
  )
}

function OutcomeRow({ outcome }: { outcome: Outcome }) {
  const rename = useSaveOutcome()
  const remove = useDeleteOutcome()
  return (
    <EditableName
      id={outcome.id}
      name={outcome.name}
      display={
        <span className="flex flex-col">
          <span className="font-medium">{outcome.name}</span>
          {outcome.description === null ? null : <span className="text-xs text-slate-500">{outcome.description}</span>}
        </span>
      }
      field="name"
      rename={(name) => rename.mutateAsync({ id: outcome.id, name })}
      remove={remove}
      consequence="Reps can no longer pick it. Calls already logged with it keep it."
    />
  )
}
