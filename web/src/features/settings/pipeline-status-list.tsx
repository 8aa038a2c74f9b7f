import type { Pipeline } from '@leadline/shared/pipeline-schema'
import type { OpportunityStatus } from '@leadline/shared/status-schema'
import { SelectField } from '../../components/ui/select-field'
import { saveErrorMessage } from '../../lib/api'
import { EditableName } from './editable-name'
import { useDeleteOpportunityStatus, useReorderStatuses, useSaveOpportunityStatus } from './settings-mutations'
import { SortableList } from './sortable-list'
import { isStatusType, STATUS_TYPE_OPTIONS, StatusTypeBadge } from './status-type-badge'

/** A pipeline's statuses in order: Move up / Move down, or dragged (pointer or keyboard); every change saves at once. */
export function PipelineStatusList({ pipeline, pipelines }: { pipeline: Pipeline; pipelines: readonly Pipeline[] }) {
  const reorder = useReorderStatuses()
  if (pipeline.statuses.length === 0) return <p className="text-sm text-slate-600">No statuses in this pipeline yet.</p>
  return (
    <SortableList
      items={pipeline.statuses}
      label={`Statuses of ${pipeline.name}`}
      place={pipeline.name}
      onReorder={(statuses) => {
        reorder.mutate({ pipeline, statuses })
      }}
    >
      {(status) => <StatusRow status={status} pipelines={pipelines} />}
    </SortableList>
  )
}

function StatusRow({ status, pipelines }: { status: OpportunityStatus; pipelines: readonly Pipeline[] }) {
  const rename = useSaveOpportunityStatus()
  const save = useSaveOpportunityStatus()
  const remove = useDeleteOpportunityStatus()
  const others = pipelines.filter((p) => p.id !== status.pipeline_id)
  const otherTypes = STATUS_TYPE_OPTIONS.filter((option) => option.value !== status.type)
  return (
    <>
      <EditableName
        id={status.id}
        name={status.label}
        display={
          <span className="flex flex-wrap items-center gap-2">
            <span className="font-medium">{status.label}</span>
            <StatusTypeBadge type={status.type} />
          </span>
        }
        field="label"
        rename={(label) => rename.mutateAsync({ id: status.id, body: { label } })}
        remove={remove}
        consequence="The status is deleted. One that opportunities still use is refused: move them to another status first."
        actions={
          <>
            <SelectField
              label={`Change the type of ${status.label}`}
              hideLabel
              value=""
              emptyLabel="Type…"
              options={otherTypes}
              isDisabled={save.isPending}
              onChange={(type) => {
                if (isStatusType(type)) save.mutate({ id: status.id, body: { type } })
              }}
              className="w-28"
            />
            {others.length === 0 ? null : (
              <SelectField
                label={`Move ${status.label} to another pipeline`}
                hideLabel
                value=""
                emptyLabel="Move to…"
                options={others.map((p) => ({ value: p.id, label: p.name }))}
                isDisabled={save.isPending}
                onChange={(pipelineId) => {
                  if (pipelineId !== '') save.mutate({ id: status.id, body: { pipeline_id: pipelineId } })
                }}
                className="w-40"
              />
            )}
          </>
        }
      />
      {save.error === null ? null : (
        <p role="alert" className="pb-2 text-sm text-red-700">
          {saveErrorMessage(save.error, 'pipeline_id')}
        </p>
      )}
    </>
  )
}
