import { useInfiniteQuery, useSuspenseQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import type { Task } from '@leadline/shared/task-schema'
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react'
import { Button } from '../../components/ui/button'
import { EmptyState, Skeleton, QueryErrorState } from '../../components/ui/feedback'
import { TextField } from '../../components/ui/text-field'
import { useDocumentTitle } from '../../lib/document-title'
import { localDate } from '../../lib/format'
import { useProgressiveCount } from '../../lib/progressive'
import { authQueries } from '../auth/auth-queries'
import { viewOf, type InboxSearch } from './inbox-search'
import { isTyping, shortcutOf } from './inbox-keys'
import { belongsTo } from './task-cache'
import { TaskDialogSlot } from './task-dialog-slot'
import type { TaskDialogState } from './task-dialogs'
import { groupTasks } from './task-groups'
import { changedTask, changeTitle, useUndoableTaskChange, type TaskChange } from './task-mutations'
import { taskQueries, type TaskListFilter } from './task-queries'
import { taskDisplay } from './task-display'
import { TaskRow, type TaskAction } from './task-row'
import { undoLast } from './task-undo'

// Only admins pick whose tasks to see: the picker and its members query load for them alone.
const AssigneePicker = lazy(() => import('./assignee-picker').then((m) => ({ default: m.AssigneePicker })))

const HEADINGS = { inbox: 'Inbox', future: 'Future', archive: 'Archive' } as const
/** Rows rendered before the others: more than a tall screen shows. */
const FIRST_ROWS = 30
const EMPTY = {
  inbox: ['Inbox zero', 'Nothing is due today. Tasks dated later wait under Future.'],
  future: ['Nothing planned', 'Tasks dated after today show here.'],
  archive: ['No completed tasks yet', 'Tasks you complete show here, newest first.'],
} as const

/** The task last moved to in each list, so coming back from a lead carries on where the rep was. */
const lastActive = new Map<string, string>()

/** The tasks whose title, details or lead contain every word of the filter, case aside. */
function matching(tasks: Task[], filter: string): Task[] {
  const words = filter
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '')
  if (words.length === 0) return tasks
  return tasks.filter((task) => {
    const display = taskDisplay(task)
    const text = [display.title, display.detail ?? '', task.lead_name ?? ''].join(' ').toLowerCase()
    return words.every((word) => text.includes(word))
  })
}

export function InboxPage({ search }: { search: InboxSearch }) {
  const { data: session } = useSuspenseQuery(authQueries.session())
  const isAdmin = session.role === 'admin'
  const view = viewOf(search)
  // Only admins look at others' tasks; a shared link with `user` opens a rep's own list.
  const assignee = isAdmin ? (search.user ?? session.user.id) : session.user.id
  const filter = useMemo<TaskListFilter>(() => ({ view, assignee }), [view, assignee])
  const list = useInfiniteQuery(taskQueries.list(filter))
  const heading = HEADINGS[view]
  useDocumentTitle(heading)

  const today = localDate()
  const [filterText, setFilterText] = useState('')
  const tasks = useMemo(
    () => matching(list.data?.pages.flatMap((page) => page.data) ?? [], filterText),
    [list.data, filterText],
  )
  const groups = useMemo(() => groupTasks(tasks, view, today), [tasks, view, today])
  const ordered = useMemo(() => groups.flatMap((group) => group.tasks), [groups])
  // The first screenful of rows first; the others in the moment after (src/lib/progressive.ts).
  const shown = useProgressiveCount(ordered.length, FIRST_ROWS)

  const listKey = `${view}:${assignee}`
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set())
  const anchor = useRef<string>(undefined)
  const [activeId, setActiveId] = useState(() => lastActive.get(listKey))
  const rows = useRef(new Map<string, HTMLLIElement>())
  const focusActive = useRef(false)
  const [dialog, setDialog] = useState<TaskDialogState>()
  const { change } = useUndoableTaskChange()
  const navigate = useNavigate()

  const activeIndex = ordered.findIndex((task) => task.id === activeId)
  const active = ordered[activeIndex]
  const chosen = ordered.filter((task) => selected.has(task.id))

  useEffect(() => {
    if (activeId !== undefined) lastActive.set(listKey, activeId)
  }, [listKey, activeId])

  useEffect(() => {
    if (!focusActive.current || activeId === undefined) return
    const row = rows.current.get(activeId)
    if (row === undefined) return
    focusActive.current = false
    row.focus()
  }, [activeId, ordered])

  const moveTo = (task: Task | undefined) => {
    if (task === undefined) return
    setActiveId(task.id)
    focusActive.current = true
  }

  /** The selected tasks, or else the one the rep is on. */
  const targets = (): Task[] => (chosen.length > 0 ? chosen : active === undefined ? [] : [active])

  /** When tasks leave this list, the focus goes on to the next task that stays (or the one before). */
  const leaving = (gone: ReadonlySet<string>) => {
    if (gone.size > 0) {
      const first = Math.max(
        0,
        ordered.findIndex((t) => gone.has(t.id)),
      )
      const stays = (t: Task) => !gone.has(t.id)
      moveTo(ordered.slice(first).find(stays) ?? ordered.slice(0, first).reverse().find(stays))
    }
  }

  const act = (changing: Task[], taskChange: TaskChange, title: string) => {
    if (changing.length === 0) return
    const now = new Date()
    leaving(new Set(changing.filter((t) => !belongsTo(changedTask(t, taskChange, now), filter, now)).map((t) => t.id)))
    setSelected(new Set())
    change(changing, taskChange, title)
  }

  const complete = (changing: Task[], done: boolean) => {
    act(changing, { is_complete: done }, changeTitle(changing, done ? 'completed' : 'reopened'))
  }

  const openDialog = (kind: 'snooze' | 'assign' | 'edit' | 'delete', changing: Task[]) => {
    if (changing.length === 0) return
    if (kind === 'snooze' && changing.every((t) => t.is_complete)) return
    setDialog({ kind, tasks: changing })
  }

  const toggle = (task: Task, range: boolean) => {
    const from = ordered.findIndex((t) => t.id === anchor.current)
    const to = ordered.findIndex((t) => t.id === task.id)
    setSelected((previous) => {
      const next = new Set(previous)
      if (range && from !== -1) {
        for (const t of ordered.slice(Math.min(from, to), Math.max(from, to) + 1)) next.add(t.id)
      } else if (next.has(task.id)) next.delete(task.id)
      else next.add(task.id)
      return next
    })
    anchor.current = task.id
  }

  const onKey = (event: KeyboardEvent) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return
    // An open dialog has the keyboard.
    if (dialog !== undefined || document.querySelector('[role="dialog"]') !== null) return
    const onRow = event.target instanceof HTMLElement && event.target.dataset.taskId !== undefined
    const shortcut = shortcutOf(event.key, onRow || event.target === document.body)
    if (shortcut === undefined) return
    event.preventDefault()
    switch (shortcut) {
      case 'next':
        moveTo(activeIndex === -1 ? ordered[0] : ordered[Math.min(activeIndex + 1, ordered.length - 1)])
        break
      case 'previous':
        moveTo(activeIndex === -1 ? ordered.at(-1) : ordered[Math.max(activeIndex - 1, 0)])
        break
      case 'select':
        if (active !== undefined) toggle(active, false)
        break
      case 'complete':
        complete(targets(), view !== 'archive')
        break
      case 'snooze':
        openDialog('snooze', targets())
        break
      case 'assign':
        openDialog('assign', targets())
        break
      case 'open':
        if (active !== undefined) void navigate({ to: '/leads/$leadId', params: { leadId: active.lead_id } })
        break
      case 'undo':
        undoLast()
        break
      case 'help':
        setDialog({ kind: 'help' })
        break
    }
  }
  const onKeyRef = useRef(onKey)
  useEffect(() => {
    onKeyRef.current = onKey
  })
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      onKeyRef.current(event)
    }
    document.addEventListener('keydown', listener)
    return () => {
      document.removeEventListener('keydown', listener)
    }
  }, [])

  const onAction = (action: TaskAction, task: Task) => {
    setActiveId(task.id)
    openDialog(action, [task])
  }

  return (
    <div className="flex flex-col gap-5">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="flex flex-col gap-3">
          <h1 className="text-2xl font-bold text-slate-900">{heading}</h1>
          <nav aria-label="Task lists" className="flex gap-1">
            {(['inbox', 'future', 'archive'] as const).map((tab) => (
              <Link
                key={tab}
                to="/inbox"
                search={{ tab: tab === 'inbox' ? undefined : tab, user: search.user }}
                aria-current={tab === view ? 'page' : undefined}
                className="rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 aria-[current=page]:bg-indigo-50 aria-[current=page]:text-indigo-700"
              >
                {HEADINGS[tab]}
              </Link>
            ))}
          </nav>
        </div>
        <div className="flex flex-wrap items-end gap-3">
          <TextField
            label="Filter tasks"
            hideLabel
            type="search"
            value={filterText}
            onChange={setFilterText}
            placeholder="Filter by task or lead"
            className="w-56"
          />
          {isAdmin ? (
            <Suspense fallback={null}>
              <AssigneePicker userId={session.user.id} value={assignee} search={search} />
            </Suspense>
          ) : null}
          <Button
            variant="quiet"
            size="sm"
            onPress={() => {
              setDialog({ kind: 'help' })
            }}
          >
            Keyboard shortcuts
          </Button>
        </div>
      </div>

      {chosen.length === 0 ? null : (
        <section
          aria-label="Selected tasks"
          className="sticky top-16 z-20 flex flex-wrap items-center gap-2 rounded-md border border-indigo-200 bg-indigo-50 px-3 py-2"
        >
          <p className="mr-auto text-sm font-medium text-indigo-900">
            {chosen.length === 1 ? '1 task' : `${String(chosen.length)} tasks`} selected
          </p>
          <Button
            size="sm"
            variant="primary"
            onPress={() => {
              complete(chosen, view !== 'archive')
            }}
          >
            {view === 'archive' ? 'Reopen' : 'Complete'}
          </Button>
          {(view === 'archive' ? (['assign'] as const) : (['snooze', 'assign'] as const)).map((kind) => (
            <Button
              key={kind}
              size="sm"
              onPress={() => {
                openDialog(kind, chosen)
              }}
            >
              {kind === 'snooze' ? 'Snooze' : 'Assign'}
            </Button>
          ))}
          <Button
            size="sm"
            variant="quiet"
            onPress={() => {
              setSelected(new Set())
            }}
          >
            Clear selection
          </Button>
        </section>
      )}

      {list.isPending ? (
        <div className="flex flex-col gap-2">
          <Skeleton className="h-5 w-32" />
          <Skeleton className="h-14 w-full" />
          <Skeleton className="h-14 w-full" />
          <Skeleton className="h-14 w-full" />
        </div>
      ) : list.isError ? (
        <QueryErrorState title="The tasks could not be loaded" query={list} />
      ) : ordered.length === 0 ? (
        filterText.trim() === '' ? (
          <EmptyState title={EMPTY[view][0]}>{EMPTY[view][1]}</EmptyState>
        ) : (
          <EmptyState title="No task matches the filter" />
        )
      ) : (
        <div className="flex flex-col gap-6">
          {groups.map((group, groupIndex) => {
            // Rows of the groups before this one, so that only the first `shown` rows of the whole list render.
            const before = groups.slice(0, groupIndex).reduce((sum, g) => sum + g.tasks.length, 0)
            if (before >= shown) return null
            const inGroup = group.tasks.filter((t) => selected.has(t.id)).length
            const headingId = `tasks-${group.key}`
            return (
              <section key={group.key} aria-labelledby={headingId} className="flex flex-col gap-1">
                <div className="flex items-center gap-3 border-b border-slate-200 px-3 pb-1">
                  <input
                    type="checkbox"
                    aria-label={`Select all in ${group.heading}`}
                    checked={inGroup === group.tasks.length}
                    ref={(box) => {
                      if (box !== null) box.indeterminate = inGroup > 0 && inGroup < group.tasks.length
                    }}
                    onChange={(event) => {
                      const checked = event.target.checked
                      setSelected((previous) => {
                        const next = new Set(previous)
                        for (const t of group.tasks) {
                          if (checked) next.add(t.id)
                          else next.delete(t.id)
                        }
                        return next
                      })
                    }}
                    className="size-4 cursor-pointer rounded accent-indigo-600"
                  />
                  <h2
                    id={headingId}
                    className={`text-sm font-semibold ${group.key === 'overdue' ? 'text-red-700' : 'text-slate-700'}`}
                  >
                    {group.heading} <span className="font-normal text-slate-500">({group.tasks.length})</span>
                  </h2>
                </div>
                <ul className="flex flex-col">
                  {group.tasks.slice(0, shown - before).map((task) => (
                    <TaskRow
                      key={task.id}
                      ref={(row) => {
                        if (row === null) rows.current.delete(task.id)
                        else rows.current.set(task.id, row)
                      }}
                      task={task}
                      today={today}
                      isActive={task.id === (active ?? ordered[0])?.id}
                      showAssignee={assignee === 'all'}
                      selection={{
                        isSelected: selected.has(task.id),
                        onToggle: (range) => {
                          toggle(task, range)
                        },
                      }}
                      onFocusRow={() => {
                        setActiveId(task.id)
                      }}
                      onComplete={(t, done) => {
                        setActiveId(t.id)
                        complete([t], done)
                      }}
                      onAction={onAction}
                    />
                  ))}
                </ul>
              </section>
            )
          })}
          {list.hasNextPage ? (
            <Button
              className="self-center"
              isPending={list.isFetchingNextPage}
              onPress={() => {
                void list.fetchNextPage()
              }}
            >
              Show more tasks
            </Button>
          ) : null}
        </div>
      )}

      <TaskDialogSlot
        state={dialog}
        onClose={() => {
          setDialog(undefined)
        }}
        onChange={act}
        onDelete={(task) => {
          leaving(new Set([task.id]))
        }}
      />
    </div>
  )
}
