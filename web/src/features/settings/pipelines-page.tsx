import { useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import type { Pipeline } from '@leadline/shared/pipeline-schema'
import { Button } from '../../components/ui/button'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { saveErrorMessage } from '../../lib/api'
import { AddByNameForm } from './add-by-name-form'
import { EditableName } from './editable-name'
import { PipelineStatusList } from './pipeline-status-list'
import { settingsPage, SettingsScreen } from './settings-layout'
import { useCreatePipeline, useDeletePipeline, useRenamePipeline, useSaveOpportunityStatus } from './settings-mutations'
import { settingsQueries } from './settings-queries'
import { isStatusType, STATUS_TYPE_OPTIONS } from './status-type-badge'

export const PipelinesPage = settingsPage(PipelinesPageContent)

function PipelinesPageContent() {
  const { data: pipelines } = useSuspenseQuery(settingsQueries.pipelines())
  return (
    <SettingsScreen
      title="Pipelines"
      description="Each pipeline lists its opportunity statuses in the order deals move through them."
    >
      <NewPipelineForm />
      {pipelines.map((pipeline) => (
        <PipelineSection key={pipeline.id} pipeline={pipeline} pipelines={pipelines} />
      ))}
    </SettingsScreen>
  )
}

function NewPipelineForm() {
  const create = useCreatePipeline()
  return <AddByNameForm fieldLabel="New pipeline name" submitLabel="Create pipeline" errorField="name" save={create} />
}

function PipelineSection({ pipeline, pipelines }: { pipeline: Pipeline; pipelines: readonly Pipeline[] }) {
  const rename = useRenamePipeline()
  const remove = useDeletePipeline()
  return (
    <section aria-label={pipeline.name} className="rounded-lg border border-slate-200 bg-white">
      <div className="border-b border-slate-100 px-4 py-2">
        <EditableName
          id={pipeline.id}
          name={pipeline.name}
          display={<h2 className="text-base font-semibold">{pipeline.name}</h2>}
          field="name"
          rename={(name) => rename.mutateAsync({ id: pipeline.id, name })}
          remove={remove}
          consequence="The pipeline is deleted. One that still holds statuses is refused: delete or move them first."
        />
      </div>
      <div className="flex flex-col gap-4 p-4">
        <PipelineStatusList pipeline={pipeline} pipelines={pipelines} />
        <NewStatusForm pipeline={pipeline} />
      </div>
    </section>
  )
}

function NewStatusForm({ pipeline }: { pipeline: Pipeline }) {
  const [label, setLabel] = useState('')
  const [type, setType] = useState<string>('active')
  const create = useSaveOpportunityStatus()
  return (
    <form
      className="flex flex-wrap items-end gap-2 border-t border-slate-100 pt-4"
      onSubmit={(event: SubmitEvent<HTMLFormElement>) => {
        event.preventDefault()
        create.mutate(
          { id: undefined, body: { label, type: isStatusType(type) ? type : 'active', pipeline_id: pipeline.id } },
          {
            onSuccess: () => {
              setLabel('')
            },
          },
        )
      }}
    >
      <TextField
        label="New status"
        value={label}
        onChange={setLabel}
        error={create.isError ? saveErrorMessage(create.error, 'label') : undefined}
        className="w-64"
      />
      <SelectField
        label="New status type"
        value={type}
        options={STATUS_TYPE_OPTIONS}
        onChange={setType}
        className="w-32"
      />
      <Button type="submit" isPending={create.isPending}>
        Add status
      </Button>
    </form>
  )
}
