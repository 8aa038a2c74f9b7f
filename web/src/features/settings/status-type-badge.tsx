import type { OpportunityStatusType } from '@leadline/shared/status-schema'

const tones: Record<OpportunityStatusType, string> = {
  active: 'bg-sky-50 text-sky-800 ring-sky-200',
  won: 'bg-emerald-50 text-emerald-800 ring-emerald-200',
  lost: 'bg-slate-100 text-slate-700 ring-slate-300',
}

export const STATUS_TYPE_OPTIONS = [
  { value: 'active', label: 'Active' },
  { value: 'won', label: 'Won' },
  { value: 'lost', label: 'Lost' },
] as const

export function isStatusType(value: string): value is OpportunityStatusType {
  return value === 'active' || value === 'won' || value === 'lost'
}

export function StatusTypeBadge({ type }: { type: OpportunityStatusType }) {
  return (
    <span className={`rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[type]}`}>
      <span className="sr-only">Type: </span>
      {type}
    </span>
  )
}
