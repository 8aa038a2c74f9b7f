import type { Lead } from '@leadline/shared/lead-schema'
import { Panel } from '../../components/ui/panel'
import { isRecord, textOf } from '../../lib/record'

/* Tasks get their own schema with their issue; until then the lead carries them as unknown items. */
export function TasksPanel({ lead }: { lead: Lead }) {
  const items = lead.tasks.filter(isRecord)
  return (
    <Panel title="Tasks">
      {items.length === 0 ? (
        <p className="text-sm text-slate-500">No tasks.</p>
      ) : (
        <ul className="flex flex-col gap-2 text-sm">
          {items.map((item, i) => (
            <li key={textOf(item, 'id') ?? i} className="flex justify-between gap-2">
              <span className={item.is_complete === true ? 'text-slate-400 line-through' : undefined}>
                {textOf(item, 'text') ?? 'Task'}
              </span>
              <span className="text-slate-500">{textOf(item, 'date', 'due_date') ?? ''}</span>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  )
}
