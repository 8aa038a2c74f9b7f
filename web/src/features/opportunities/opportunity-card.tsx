import { useDraggable } from '@dnd-kit/core'
import { Link, useNavigate } from '@tanstack/react-router'
import { Button as AriaButton, Menu, MenuItem, MenuTrigger, Popover } from 'react-aria-components'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { focusRing } from '../../components/ui/button'
import { formatCalendarDate } from '../../lib/format'
import { isOverdue, type BoardStatus } from './board-moves'
import { cx } from '../../lib/cx'

export interface CardDragData {
  opportunity: Opportunity
  from: BoardStatus
}

interface OpportunityCardProps {
  opportunity: Opportunity
  status: BoardStatus
  statuses: readonly BoardStatus[]
  today: string
  onMove: (to: BoardStatus) => void
}

/** A card: the lead (a link), what it is worth, who owns it and when it should close; it drags by its handle. */
export function OpportunityCard({ opportunity, status, statuses, today, onMove }: OpportunityCardProps) {
  const data: CardDragData = { opportunity, from: status }
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, isDragging } = useDraggable({
    id: opportunity.id,
    data,
  })
  const name = opportunity.lead_name ?? 'Unnamed lead'
  const nameId = `card-${opportunity.id}`
  const navigate = useNavigate()
  const open = () => {
    void navigate({ to: '/opportunities', search: (prev) => ({ ...prev, opportunity: opportunity.id }) })
  }
  return (
    // A click on the card's plain parts opens it too, as on any board; the Open button is the way by keyboard.
    // eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-noninteractive-element-interactions
    <article
      ref={setNodeRef}
      aria-labelledby={nameId}
      {...listeners}
      onClick={(event) => {
        if (event.target instanceof Element && event.target.closest('a, button') === null) open()
      }}
      className={cx(
        'flex cursor-pointer flex-col gap-1.5 rounded-md border border-slate-200 bg-white p-3 text-sm shadow-sm',
        isDragging && 'opacity-40',
      )}
    >
      <div className="flex items-start gap-2">
        <button
          type="button"
          ref={setActivatorNodeRef}
          {...attributes}
          aria-label={`Drag ${name}`}
          className={cx('-ml-1 cursor-grab rounded px-1 text-slate-400 hover:text-slate-700', focusRing)}
        >
          <span aria-hidden="true">⠿</span>
        </button>
        <Link
          id={nameId}
          to="/leads/$leadId"
          params={{ leadId: opportunity.lead_id }}
          className={cx('min-w-0 flex-1 font-medium break-words text-indigo-700 hover:underline', focusRing)}
        >
          {name}
        </Link>
        <button
          type="button"
          aria-label={`Open ${name} opportunity`}
          className={cx('rounded px-1.5 py-0.5 text-xs font-medium text-indigo-700 hover:bg-indigo-50', focusRing)}
          onClick={open}
        >
          Open
        </button>
      </div>
      <CardFacts opportunity={opportunity} today={today} />
      <MenuTrigger>
        <AriaButton
          className={cx(
            'self-start rounded px-1.5 py-0.5 text-xs font-medium text-slate-600 hover:bg-slate-100',
            focusRing,
          )}
        >
          Move to…
        </AriaButton>
        <Popover className="min-w-40 rounded-md border border-slate-200 bg-white p-1 shadow-lg">
          <Menu
            aria-label={`Move ${name} to`}
            className="outline-none"
            onAction={(key) => {
              const to = statuses.find((s) => s.id === key)
              if (to !== undefined) onMove(to)
            }}
          >
            {statuses
              .filter((s) => s.id !== status.id)
              .map((s) => (
                <MenuItem
                  key={s.id}
                  id={s.id}
                  className="cursor-default rounded px-2 py-1 text-sm outline-none data-[focused]:bg-indigo-50 data-[focused]:text-indigo-800"
                >
                  {s.label}
                </MenuItem>
              ))}
          </Menu>
        </Popover>
      </MenuTrigger>
    </article>
  )
}

/** What a card says about the opportunity; also the picture under the pointer while dragging. */
export function CardFacts({ opportunity, today }: { opportunity: Opportunity; today: string }) {
  const overdue = isOverdue(opportunity, today)
  return (
    <ul className="flex flex-col gap-0.5 text-slate-700">
      <li className="font-medium text-slate-900">{opportunity.value_formatted ?? 'No value'}</li>
      <li>{opportunity.confidence}% confidence</li>
      <li>{opportunity.user_name ?? 'No owner'}</li>
      {opportunity.date_won === null ? null : (
        <li className={overdue ? 'font-medium text-red-700' : undefined}>
          {opportunity.status_type === 'won' ? 'Won' : 'Closes'} {formatCalendarDate(opportunity.date_won)}
          {overdue ? (
            <span className="ml-1.5 inline-block rounded bg-red-100 px-1 text-xs whitespace-nowrap">
              <span aria-hidden="true">⚠ </span>Overdue
            </span>
          ) : null}
        </li>
      )}
    </ul>
  )
}
