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
import type { ReactNode } from 'react'
import { Button, focusRing } from '../../components/ui/button'

const INSTRUCTIONS =
  'To move an item, press Space or Enter to pick it up, the up and down arrow keys to move it, and Space or Enter to drop it. Escape cancels.'

export interface SortableItem {
  id: string
  label: string
}

export interface SortableListProps<T extends SortableItem> {
  items: readonly T[]
  /** The list's accessible name. */
  label: string
  /** Where the announcements say an item is: `Picked up Alpha, at position 1 of 3 in <place>.` */
  place: string
  /** Called with every item in the new order. */
  onReorder: (items: T[]) => void
  /** The row's content beside its drag handle and its Move up / Move down buttons. */
  children: (item: T) => ReactNode
}

/** Items in order, moved with Move up / Move down or dragged (pointer or keyboard, with announcements). */
export function SortableList<T extends SortableItem>({
  items,
  label,
  place,
  onReorder,
  children,
}: SortableListProps<T>) {
  const sensors = useSensors(
    useSensor(PointerSensor),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  )
  const count = items.length
  const indexOf = (id: UniqueIdentifier) => items.findIndex((item) => item.id === id)
  const labelOf = (id: UniqueIdentifier) => items[indexOf(id)]?.label ?? 'The item'
  const where = (id: UniqueIdentifier) => `position ${String(indexOf(id) + 1)} of ${String(count)}`
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${labelOf(active.id)}, at ${where(active.id)} in ${place}.`,
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
    onReorder(arrayMove([...items], from, to))
  }

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      accessibility={{ announcements, screenReaderInstructions: { draggable: INSTRUCTIONS } }}
      onDragEnd={({ active, over }) => {
        if (over !== null) move(indexOf(active.id), indexOf(over.id))
      }}
    >
      <SortableContext items={items.map((item) => item.id)} strategy={verticalListSortingStrategy}>
        <ol aria-label={label} className="flex flex-col divide-y divide-slate-100">
          {items.map((item, index) => (
            <SortableRow
              key={item.id}
              item={item}
              index={index}
              count={count}
              onMove={(to) => {
                move(index, to)
              }}
            >
              {children(item)}
            </SortableRow>
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  )
}

interface SortableRowProps {
  item: SortableItem
  index: number
  count: number
  onMove: (to: number) => void
  children: ReactNode
}

function SortableRow({ item, index, count, onMove, children }: SortableRowProps) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: item.id,
  })

  // The row moves in the DOM, which blurs the pressed button: give focus back to it (or its twin at either end).
  const moveBy = (step: -1 | 1) => {
    const to = index + step
    onMove(to)
    const pressed = step === -1 ? 'up' : 'down'
    const isBlocked = step === -1 ? to === 0 : to === count - 1
    const direction = isBlocked ? (pressed === 'up' ? 'down' : 'up') : pressed
    requestAnimationFrame(() => {
      document.getElementById(`move-${direction}-${item.id}`)?.focus()
    })
  }

  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      className={`flex flex-wrap items-start gap-2 bg-white py-1 ${isDragging ? 'relative z-10 shadow-md' : ''}`}
    >
      <button
        ref={setActivatorNodeRef}
        type="button"
        {...attributes}
        {...listeners}
        aria-label={`Drag ${item.label}`}
        className={`mt-1.5 cursor-grab touch-none rounded px-1.5 py-1 text-slate-500 hover:bg-slate-100 ${focusRing}`}
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
      <div className="min-w-0 grow basis-64">{children}</div>
      <div className="mt-1.5 flex gap-1">
        <Button
          id={`move-up-${item.id}`}
          size="sm"
          variant="quiet"
          isDisabled={index === 0}
          onPress={() => {
            moveBy(-1)
          }}
        >
          Move up<span className="sr-only"> {item.label}</span>
        </Button>
        <Button
          id={`move-down-${item.id}`}
          size="sm"
          variant="quiet"
          isDisabled={index === count - 1}
          onPress={() => {
            moveBy(1)
          }}
        >
          Move down<span className="sr-only"> {item.label}</span>
        </Button>
      </div>
    </li>
  )
}
