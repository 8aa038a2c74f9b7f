import { useSuspenseQuery } from '@tanstack/react-query'
import { useId, type ChangeEvent } from 'react'
import { Button } from '../../components/ui/button'
import { SelectField } from '../../components/ui/select-field'
import { DateRangeFields } from '../../components/ui/date-range-fields'
import { inputStyles, labelStyles } from '../../components/ui/text-field'
import { localDate } from '../../lib/format'
import { opportunityQueries } from '../opportunities/opportunity-queries'
import { setupQueries } from '../leads/lead-queries'
import { DATE_PRESETS, presetOf, presetRange } from './report-dates'
import { GROUPING_CHOICES, STATUS_LABELS } from './report-filters'
import type { ReportSearch } from './report-search'

/** What a control changes; the page drops the drill-down with it. */
export type ReportChange = Partial<Omit<ReportSearch, 'group'>>

/** Grouping, filters and dates of a report; every change goes to the URL. */
export function ReportControls({
  search,
  onChange,
}: {
  search: ReportSearch
  onChange: (change: ReportChange) => void
}) {
  const { data: pipelines } = useSuspenseQuery(opportunityQueries.pipelines())
  const { data: members } = useSuspenseQuery(setupQueries.members())
  const ownersId = useId()
  const active = search.dates === 'all' ? undefined : presetOf(search, localDate())
  return (
    <div className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4">
      <div className="flex flex-wrap items-start gap-4">
        <ChoiceField
          label="Group by"
          choices={GROUPING_CHOICES}
          value={search.by}
          onChange={(by) => {
            onChange({ by })
          }}
        />
        <SelectField
          label="Pipeline"
          className="w-48"
          value={search.pipeline ?? ''}
          emptyLabel="All pipelines"
          options={pipelines.map((p) => ({ value: p.id, label: p.name }))}
          onChange={(id) => {
            onChange({ pipeline: id === '' ? undefined : id })
          }}
        />
        <ChoiceField
          label="Status"
          choices={STATUS_LABELS}
          value={search.status}
          onChange={(status) => {
            onChange({ status })
          }}
        />
        <div className="flex flex-col gap-1">
          <label htmlFor={ownersId} className={labelStyles}>
            Owners
          </label>
          <select
            id={ownersId}
            multiple
            // Every member in view up to six (three left a fourth cut in half, as if it were the last).
            size={Math.min(Math.max(members.length, 2), 6)}
            aria-describedby={`${ownersId}-hint`}
            value={search.owners?.split(',') ?? []}
            onChange={(event: ChangeEvent<HTMLSelectElement>) => {
              const ids = [...event.target.selectedOptions].map((o) => o.value)
              onChange({ owners: ids.length === 0 ? undefined : ids.join(',') })
            }}
            className={`${inputStyles} w-48`}
          >
            {members.map((m) => (
              <option key={m.id} value={m.id}>
                {m.display_name}
              </option>
            ))}
          </select>
          <p id={`${ownersId}-hint`} className="text-xs text-slate-500">
            None selected: everyone.
          </p>
        </div>
        <DateRangeFields
          fromLabel="Won from"
          toLabel="Won to"
          from={search.from}
          to={search.to}
          inputWidth="w-44"
          onChange={(range) => {
            onChange({ ...range, dates: undefined })
          }}
        />
      </div>
      <div role="group" aria-label="Date presets" className="flex flex-wrap gap-2">
        {DATE_PRESETS.map((preset) => (
          <Button
            key={preset.id}
            size="sm"
            aria-pressed={active === preset.id}
            className="aria-pressed:border-indigo-400 aria-pressed:bg-indigo-50 aria-pressed:text-indigo-800"
            onPress={() => {
              onChange({ ...presetRange(preset.id, localDate()), dates: undefined })
            }}
          >
            {preset.label}
          </Button>
        ))}
        <Button
          size="sm"
          aria-pressed={search.dates === 'all'}
          className="aria-pressed:border-indigo-400 aria-pressed:bg-indigo-50 aria-pressed:text-indigo-800"
          onPress={() => {
            onChange({ from: undefined, to: undefined, dates: 'all' })
          }}
        >
          All dates
        </Button>
      </div>
    </div>
  )
}

/** A select of a fixed list of choices: it hands on the choice picked, never other text. */
function ChoiceField<C extends string>({
  label,
  choices,
  value,
  onChange,
}: {
  label: string
  choices: readonly { id: C; label: string }[]
  value: C
  onChange: (choice: C) => void
}) {
  return (
    <SelectField
      label={label}
      className="w-36"
      value={value}
      options={choices.map((c) => ({ value: c.id, label: c.label }))}
      onChange={(picked) => {
        const choice = choices.find((c) => c.id === picked)
        if (choice !== undefined) onChange(choice.id)
      }}
    />
  )
}
