import type { Task } from '@leadline/shared/task-schema'
import { Link } from '@tanstack/react-router'
import type { MouseEvent, Ref } from 'react'
import { Button } from '../../components/ui/button'
import { taskDay, taskWhen } from './task-days'
import { taskDisplay } from './task-display'

export type TaskAction = 'snooze' | 'assign' | 'edit' | 'delete'

export interface TaskRowProps {
  task: Task
  today: string
  /** The inbox's selection; the lead page has none. */
  selection?: { isSelected: boolean; onToggle: (range: boolean) => void }
  isActive?: boolean
  /** The lead page leaves out the lead it is on. */
  showLead?: boolean
  showAssignee?: boolean
  onComplete: (task: Task, done: boolean) => void
  onAction: (action: TaskAction, task: Task) => void
  /** The row itself, focusable, for `j`/`k`. */
  onFocusRow?: () => void
  ref?: Ref<HTMLLIElement>
}

/** A press on the row outside its own controls selects it (with shift, the range from the last one selected). */
function isControl(target: EventTarget): boolean {
  return target instanceof Element && target.closest('a, button, input, label, select, textarea') !== null
}

export function TaskRow({
  task,
  today,
  selection,
  isActive = false,
  showLead = true,
  showAssignee = false,
  onComplete,
  onAction,
  onFocusRow,
  ref,
}: TaskRowProps) {
  const display = taskDisplay(task)
  const overdue = !task.is_complete && !task.is_dateless && taskDay(task.date) < today
  const name = display.title
  return (
    // The row takes the focus for j/k, whose keys the page handles; a press on it selects, as its Select box does.
    // eslint-disable-next-line jsx-a11y/no-noninteractive-element-interactions, jsx-a11y/click-events-have-key-events
    <li
      ref={ref}
      // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
      tabIndex={onFocusRow === undefined ? undefined : isActive ? 0 : -1}
      data-task-id={task.id}
      data-active={isActive || undefined}
      data-selected={selection?.isSelected === true || undefined}
      onFocus={(event) => {
        if (event.target === event.currentTarget) onFocusRow?.()
      }}
      onClick={(event: MouseEvent<HTMLLIElement>) => {
        if (selection === undefined || isControl(event.target)) return
        onFocusRow?.()
        selection.onToggle(event.shiftKey)
      }}
      className={`group flex flex-wrap items-start gap-x-3 gap-y-1 rounded-md ${selection === undefined ? '' : 'sm:flex-nowrap'} border border-transparent px-3 py-2 outline-none hover:bg-slate-50 focus-visible:ring-2 focus-visible:ring-indigo-500 data-[active]:border-slate-200 data-[selected]:bg-indigo-50`}
    >
      {selection === undefined ? null : (
        <input
          type="checkbox"
          aria-label={`Select: ${name}`}
          checked={selection.isSelected}
          onChange={() => undefined}
          onClick={(event) => {
            onFocusRow?.()
            selection.onToggle(event.shiftKey)
          }}
          className="mt-1 size-4 shrink-0 cursor-pointer rounded accent-indigo-600"
        />
      )}
      <input
        type="checkbox"
        aria-label={task.is_complete ? `Reopen: ${name}` : `Complete: ${name}`}
        checked={task.is_complete}
        onChange={(event) => {
          onComplete(task, event.target.checked)
        }}
        className="mt-1 size-4 shrink-0 cursor-pointer appearance-none rounded-full border-2 border-slate-400 bg-white hover:border-emerald-600 checked:border-emerald-600 checked:bg-emerald-600"
      />
      <div className="flex min-w-0 flex-1 flex-col gap-0.5">
        <p className="flex flex-wrap items-baseline gap-x-2 text-sm">
          {task._type === 'lead' ? null : (
            <span className="rounded bg-slate-100 px-1.5 text-xs font-semibold text-slate-700">{display.kind}</span>
          )}
          <span
            className={`font-medium break-words ${task.is_complete ? 'text-slate-500 line-through' : 'text-slate-900'}`}
          >
            {name}
          </span>
        </p>
        {display.detail === undefined ? null : (
          <p className="line-clamp-2 text-sm break-words text-slate-600">{display.detail}</p>
        )}
        <p className="flex flex-wrap gap-x-3 text-xs text-slate-500">
          {showLead ? (
            <Link
              to="/leads/$leadId"
              params={{ leadId: task.lead_id }}
              className="font-medium text-indigo-700 hover:underline"
            >
              {task.lead_name ?? 'Unnamed lead'}
            </Link>
          ) : null}
          {display.object === undefined ? null : 'opportunity' in display.object ? (
            <Link
              to="/opportunities"
              search={{ opportunity: display.object.opportunity }}
              className="text-indigo-700 hover:underline"
            >
              {display.object.label}
            </Link>
          ) : (
            <a
              href={display.object.href}
              target="_blank"
              rel="noreferrer noopener"
              className="text-indigo-700 hover:underline"
            >
              {display.object.label}
            </a>
          )}
          {showAssignee ? <span>{task.assigned_to_name ?? 'Unassigned'}</span> : null}
        </p>
      </div>
      {/* On a phone, and in the lead page's narrow panel, the date and the actions take a line under the task. */}
      <div
        className={`flex w-full flex-wrap items-center justify-between gap-x-2 gap-y-1 ${selection === undefined ? 'pl-7' : 'pl-14 sm:w-auto sm:shrink-0 sm:flex-col sm:items-end sm:pl-0'}`}
      >
        <span className={`text-xs whitespace-nowrap ${overdue ? 'font-semibold text-red-700' : 'text-slate-600'}`}>
          {taskWhen(task, today)}
        </span>
        <span className="flex flex-wrap gap-0.5">
          {task.is_complete ? null : (
            <RowButton
              label="Snooze"
              name={name}
              onPress={() => {
                onAction('snooze', task)
              }}
            />
          )}
          {selection === undefined ? null : (
            <RowButton
              label="Assign"
              name={name}
              onPress={() => {
                onAction('assign', task)
              }}
            />
          )}
          {task._type === 'lead' ? (
            <RowButton
              label="Edit"
              name={name}
              onPress={() => {
                onAction('edit', task)
              }}
            />
          ) : null}
          <RowButton
            label="Delete"
            name={name}
            onPress={() => {
              onAction('delete', task)
            }}
          />
        </span>
      </div>
    </li>
  )
}

function RowButton({ label, name, onPress }: { label: string; name: string; onPress: () => void }) {
  return (
    <Button variant="quiet" aria-label={`${label}: ${name}`} size="xs" onPress={onPress}>
      {label}
    </Button>
  )
}
