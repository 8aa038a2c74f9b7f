import {
  DndContext,
  DragOverlay,
  KeyboardSensor,
  PointerSensor,
  pointerWithin,
  rectIntersection,
  useSensor,
  useSensors,
  type Announcements,
  type CollisionDetection,
  type KeyboardCoordinateGetter,
} from '@dnd-kit/core'
import { useSuspenseQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { useState } from 'react'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import type { Pipeline } from '@leadline/shared/pipeline-schema'
import { EmptyState } from '../../components/ui/feedback'
import { SelectField } from '../../components/ui/select-field'
import { useDocumentTitle } from '../../lib/document-title'
import { authQueries } from '../auth/auth-queries'
import { BoardColumn } from './board-column'
import { BoardFilterBar, ViewSwitch } from './board-filters'
import type { BoardStatus } from './board-moves'
import { localDate } from '../../lib/format'
import { filtersOf, pipelineOf, type BoardFilters, type BoardSearch } from './board-search'
import { CardFacts, type CardDragData } from './opportunity-card'
// Not lazy: a chunk of its own would split code the first routes share into more chunks, and cost them about 0.6 kB.
import { OpportunityList } from './opportunity-list'
import { NewOpportunityButton } from './opportunity-form-dialog'
import { useMoveOpportunity } from './opportunity-move'
import { opportunityQueries } from './opportunity-queries'

/**
 * The pipeline board: a column per status of the chosen pipeline; cards move by menu, by mouse or by keyboard. The
 * filters narrow the board and its list view alike.
 */
export function OpportunityBoardPage({ search }: { search: BoardSearch }) {
  useDocumentTitle('Opportunities')
  const { data: session } = useSuspenseQuery(authQueries.session())
  const { data: organization } = useSuspenseQuery(opportunityQueries.organization(session.organization.id))
  const { data: pipelines } = useSuspenseQuery(opportunityQueries.pipelines())
  const navigate = useNavigate()
  const pipeline = pipelineOf(pipelines, search.pipeline)
  const filters = filtersOf(search)
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Opportunities</h1>
        <NewOpportunityButton pipelineId={pipeline?.id} className="ml-auto" />
        {pipeline === undefined ? null : (
          <SelectField
            label="Pipeline"
            value={pipeline.id}
            className="w-56"
            options={pipelines.map((p) => ({ value: p.id, label: p.name }))}
            onChange={(id) => {
              void navigate({ to: '/opportunities', search: (prev) => ({ ...prev, pipeline: id }) })
            }}
          />
        )}
      </div>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <BoardFilterBar search={search} members={organization.memberships} />
        <ViewSwitch />
      </div>
      {pipeline === undefined ? (
        <EmptyState title="No pipelines yet" />
      ) : search.view === 'list' ? (
        <OpportunityList pipeline={pipeline} filters={filters} sort={search.sort} currency={organization.currency} />
      ) : (
        <Board key={pipeline.id} pipeline={pipeline} filters={filters} currency={organization.currency} />
      )}
    </div>
  )
}

function isCardDragData(value: unknown): value is CardDragData {
  return typeof value === 'object' && value !== null && 'opportunity' in value && 'from' in value
}

interface BoardProps {
  pipeline: Pipeline
  filters: BoardFilters
  currency: string
}

function Board({ pipeline, filters, currency }: BoardProps) {
  const move = useMoveOpportunity()
  const [dragged, setDragged] = useState<CardDragData | null>(null)
  const today = localDate()
  const statuses: BoardStatus[] = pipeline.statuses
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: columnCoordinates }),
  )
  const labelOf = (id: string | number | undefined) => statuses.find((s) => s.id === id)?.label ?? 'a column'
  const nameOf = (data: unknown) => (isCardDragData(data) ? (data.opportunity.lead_name ?? 'The card') : 'The card')
  const fromOf = (data: unknown) => (isCardDragData(data) ? data.from.label : 'its column')
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${nameOf(active.data.current)} in ${fromOf(active.data.current)}.`,
    // It also fires as a drag starts, over the card's own column, and replaces the start's announcement.
    onDragOver: ({ active, over }) =>
      over === null
        ? `${nameOf(active.data.current)} is not over a column.`
        : isCardDragData(active.data.current) && active.data.current.from.id === over.id
          ? `Picked up ${nameOf(active.data.current)}; it is over ${labelOf(over.id)}, where it started.`
          : `${nameOf(active.data.current)} is over ${labelOf(over.id)}.`,
    onDragEnd: ({ active, over }) =>
      over === null || (isCardDragData(active.data.current) && active.data.current.from.id === over.id)
        ? `${nameOf(active.data.current)} stays in ${fromOf(active.data.current)}.`
        : `${nameOf(active.data.current)} dropped in ${labelOf(over.id)}.`,
    onDragCancel: ({ active }) =>
      `Moving ${nameOf(active.data.current)} was cancelled. It stays in ${fromOf(active.data.current)}.`,
  }
  const requestMove = (opportunity: Opportunity, from: BoardStatus, to: BoardStatus) => {
    if (from.id !== to.id) move.mutate({ opportunity, from, to, filters })
  }
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={pointerThenRect}
      accessibility={{
        announcements,
        screenReaderInstructions: {
          draggable:
            'To pick up a card, press space or enter. Use the left and right arrow keys to move it to another column. Press space or enter again to drop it there, or escape to cancel.',
        },
      }}
      onDragStart={({ active }) => {
        setDragged(isCardDragData(active.data.current) ? active.data.current : null)
      }}
      onDragCancel={() => {
        setDragged(null)
      }}
      onDragEnd={({ active, over }) => {
        setDragged(null)
        const data = active.data.current
        const to = statuses.find((s) => s.id === over?.id)
        if (isCardDragData(data) && to !== undefined) requestMove(data.opportunity, data.from, to)
      }}
    >
      <div className="relative flex items-stretch gap-3 overflow-x-auto pb-4">
        {statuses.map((status) => (
          <BoardColumn
            key={status.id}
            status={status}
            statuses={statuses}
            filters={filters}
            currency={currency}
            today={today}
            onMove={requestMove}
          />
        ))}
      </div>
      <DragOverlay>
        {dragged === null ? null : (
          <div
            aria-hidden="true"
            className="flex w-60 cursor-grabbing flex-col gap-1.5 rounded-md border border-indigo-300 bg-white p-3 text-sm shadow-lg"
          >
            <span className="font-medium text-indigo-700">{dragged.opportunity.lead_name}</span>
            <CardFacts opportunity={dragged.opportunity} today={today} />
          </div>
        )}
      </DragOverlay>
    </DndContext>
  )
}

/** The pointer's column when there is a pointer; for the keyboard, the column the card overlaps most. */
const pointerThenRect: CollisionDetection = (args) => {
  const hits = pointerWithin(args)
  return hits.length > 0 ? hits : rectIntersection(args)
}

/** Left and right arrows carry a lifted card to the middle of the next column; a column has no order within. */
const columnCoordinates: KeyboardCoordinateGetter = (event, { context, currentCoordinates }) => {
  const direction = event.code === 'ArrowRight' ? 1 : event.code === 'ArrowLeft' ? -1 : 0
  const card = context.collisionRect
  if (direction === 0 || card === null) return undefined
  const center = card.left + card.width / 2
  const columns = [...context.droppableRects.values()].sort((a, b) => a.left - b.left)
  const target =
    direction === 1
      ? columns.find((rect) => rect.left > center)
      : columns.reverse().find((rect) => rect.left + rect.width < center)
  if (target === undefined) return undefined
  return {
    x: currentCoordinates.x + target.left + (target.width - card.width) / 2 - card.left,
    y: currentCoordinates.y,
  }
}
