import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type UniqueIdentifier,
} from '@dnd-kit/core'
import {
  arrayMove,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable'
import { CSS } from '@dnd-kit/utilities'
import { useState, type SubmitEvent } from 'react'
import type { Pipeline } from '@leadline/shared/pipeline-schema'
import type { OpportunityStatus } from '@leadline/shared/status-schema'
import { Button, focusRing } from '../../components/ui/button'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { isApiError, saveErrorMessage } from '../../lib/api'
import { useDeleteOpportunityStatus, useReorderStatuses, useSaveOpportunityStatus } from './settings-mutations'
import { isStatusType, STATUS_TYPE_OPTIONS, StatusTypeBadge } from './status-type-badge'

const INSTRUCTIONS =
  'To move a status, press Space or Enter to pick it up, the up and down arrow keys to move it, and Space or Enter to drop it. Escape cancels.'

/** A pipeline's statuses in order: Move up / Move down, or dragged (pointer or keyboard); every change saves at once. */
export function PipelineStatusList({ pipeline, pipelines }: { pipeline: Pipeline; pipelines: readonly Pipeline[] }) {
  const reorder = useReorderStatuses()
  const sensors = useSensors(
    useSensor(PointerSensor),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  )
  const { statuses } = pipeline
  const count = statuses.length
  const indexOf = (id: UniqueIdentifier) => statuses.findIndex((s) => s.id === id)
  const labelOf = (id: UniqueIdentifier) => statuses[indexOf(id)]?.label ?? 'The status'
  const where = (id: UniqueIdentifier) => `position ${String(indexOf(id) + 1)} of ${String(count)}`
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${labelOf(active.id)}, at ${where(active.id)} in ${pipeline.name}.`,
    // Over itself is where a drag starts: saying so would cut off the announcement that it was picked up.
    onDragOver: ({ active, over }) =>
      over === null
        ? `${labelOf(active.id)} is outside the list.`
        : over.id === active.id
          ? undefined
          : `${labelOf(active.id)} is over ${where(over.id)}.`,
    onDragEnd: ({ active, over }) =>
      over === null
        ? `${labelOf(active.id)} was dropped outside the list and stays where it was.`
        : `${labelOf(active.id)} was dropped at ${where(over.id)}.`,
    onDragCancel: ({ active }) => `Moving ${labelOf(active.id)} was cancelled; it stays at ${where(active.id)}.`,
  }

  const move = (from: number, to: number) => {
    if (from === to || from < 0 || to < 0 || to >= count) return
    reorder.mutate({ pipeline, statuses: arrayMove(statuses, from, to) })
  }

  if (count === 0) return <p className="text-sm text-slate-600">No statuses in this pipeline yet.</p>
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      accessibility={{ announcements, screenReaderInstructions: { draggable: INSTRUCTIONS } }}
      onDragEnd={({ active, over }) => {
        if (over !== null) move(indexOf(active.id), indexOf(over.id))
      }}
    >
      <SortableContext items={statuses.map((s) => s.id)} strategy={verticalListSortingStrategy}>
        <ol aria-label={`Statuses of ${pipeline.name}`} className="flex flex-col divide-y divide-slate-100">
          {statuses.map((status, index) => (
            <StatusRow
              key={status.id}
              status={status}
              index={index}
              count={count}
              pipelines={pipelines}
              onMove={(to) => {
                move(index, to)
              }}
            />
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  )
}

interface StatusRowProps {
  status: OpportunityStatus
  index: number
  count: number
  pipelines: readonly Pipeline[]
  onMove: (to: number) => void
}

function StatusRow({ status, index, count, pipelines, onMove }: StatusRowProps) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: status.id,
  })
  const [isEditing, setEditing] = useState(false)
  const save = useSaveOpportunityStatus()
  const remove = useDeleteOpportunityStatus()
  const others = pipelines.filter((p) => p.id !== status.pipeline_id)
  const error = remove.error ?? (isEditing ? null : save.error)

  // The row moves in the DOM, which blurs the pressed button: give focus back to it (or its twin at either end).
  const moveBy = (step: -1 | 1) => {
    const to = index + step
    onMove(to)
    const pressed = step === -1 ? 'up' : 'down'
    const isBlocked = step === -1 ? to === 0 : to === count - 1
    const direction = isBlocked ? (pressed === 'up' ? 'down' : 'up') : pressed
    requestAnimationFrame(() => {
      document.getElementById(`move-${direction}-${status.id}`)?.focus()
    })
  }

  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      className={`flex flex-col gap-2 bg-white py-2 ${isDragging ? 'relative z-10 shadow-md' : ''}`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <button
          ref={setActivatorNodeRef}
          type="button"
          {...attributes}
          {...listeners}
          aria-label={`Drag ${status.label}`}
          className={`cursor-grab touch-none rounded px-1.5 py-1 text-slate-500 hover:bg-slate-100 ${focusRing}`}
        >
          <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4 fill-current">
            <circle cx="7" cy="5" r="1.5" />
            <circle cx="13" cy="5" r="1.5" />
            <circle cx="7" cy="10" r="1.5" />
            <circle cx="13" cy="10" r="1.5" />
            <circle cx="7" cy="15" r="1.5" />
            <circle cx="13" cy="15" r="1.5" />
          </svg>
        </button>
        <span className="font-medium text-slate-900">{status.label}</span>
        <StatusTypeBadge type={status.type} />
        <div className="ml-auto flex flex-wrap items-center gap-1">
          <Button
            id={`move-up-${status.id}`}
            size="sm"
            variant="quiet"
            isDisabled={index === 0}
            onPress={() => {
              moveBy(-1)
            }}
          >
            Move up<span className="sr-only"> {status.label}</span>
          </Button>
          <Button
            id={`move-down-${status.id}`}
            size="sm"
            variant="quiet"
            isDisabled={index === count - 1}
            onPress={() => {
              moveBy(1)
            }}
          >
            Move down<span className="sr-only"> {status.label}</span>
          </Button>
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
          <Button
            size="sm"
            variant="quiet"
            onPress={() => {
              save.reset()
              setEditing(true)
            }}
          >
            Edit<span className="sr-only"> {status.label}</span>
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
      {error === null ? null : (
        <p role="alert" className="text-sm text-red-700">
          {saveErrorMessage(error, 'pipeline_id')}
        </p>
      )}
      {isEditing ? (
        <EditStatusForm
          status={status}
          onDone={() => {
            setEditing(false)
          }}
        />
      ) : null}
    </li>
  )
}

function EditStatusForm({ status, onDone }: { status: OpportunityStatus; onDone: () => void }) {
  const [label, setLabel] = useState(status.label)
  const [type, setType] = useState<string>(status.type)
  const save = useSaveOpportunityStatus()
  const fieldErrors = isApiError(save.error) ? save.error.fieldErrors : {}
  return (
    <form
      className="flex flex-wrap items-end gap-2 pl-8"
      onSubmit={(event: SubmitEvent<HTMLFormElement>) => {
        event.preventDefault()
        save.mutate(
          { id: status.id, body: { label, type: isStatusType(type) ? type : status.type } },
          { onSuccess: onDone },
        )
      }}
    >
      <TextField
        label="Label"
        value={label}
        onChange={setLabel}
        autoFocus
        error={save.isError && fieldErrors.type === undefined ? saveErrorMessage(save.error, 'label') : undefined}
        className="w-64"
      />
      <SelectField
        label="Type"
        value={type}
        options={STATUS_TYPE_OPTIONS}
        onChange={setType}
        error={fieldErrors.type}
        className="w-32"
      />
      <Button type="submit" variant="primary" isPending={save.isPending}>
        Save status
      </Button>
      <Button onPress={onDone}>Cancel</Button>
    </form>
  )
}
