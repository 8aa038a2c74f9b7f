import { useSuspenseQuery } from '@tanstack/react-query'
import type { LeadStatus } from '@leadline/shared/status-schema'
import { authQueries } from '../auth/auth-queries'
import { AddByNameForm } from './add-by-name-form'
import { EditableName } from './editable-name'
import { settingsPage, SettingsScreen } from './settings-layout'
import { settingsQueries } from './settings-queries'
import { useDeleteLeadStatus, useReorderLeadStatuses, useSaveLeadStatus } from './settings-mutations'
import { SortableList } from './sortable-list'

/** Lead statuses in the organization's order, which every status picker follows. */
export const LeadStatusesPage = settingsPage(LeadStatusesPageContent)

function LeadStatusesPageContent() {
  const { data: statuses } = useSuspenseQuery(settingsQueries.leadStatuses())
  const { data: session } = useSuspenseQuery(authQueries.session())
  const reorder = useReorderLeadStatuses()
  return (
    <SettingsScreen title="Lead statuses" description="Every lead has one of these statuses.">
      <NewLeadStatusForm />
      <div className="rounded-lg border border-slate-200 bg-white px-4">
        <SortableList
          items={statuses}
          label="Lead statuses"
          place="the lead statuses"
          onReorder={(ordered) => {
            reorder.mutate({ organizationId: session.organization.id, statuses: ordered })
          }}
        >
          {(status) => <LeadStatusRow status={status} />}
        </SortableList>
      </div>
    </SettingsScreen>
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
  const rename = useSaveLeadStatus()
  const remove = useDeleteLeadStatus()
  return (
    <EditableName
      id={status.id}
      name={status.label}
      display={<span className="font-medium">{status.label}</span>}
      field="label"
      rename={(label) => rename.mutateAsync({ id: status.id, label })}
      remove={remove}
      consequence="The status is deleted. One that leads still use is refused: move them to another status first."
    />
  )
}
