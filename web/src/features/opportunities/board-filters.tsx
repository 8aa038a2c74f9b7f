import { Link, useNavigate } from '@tanstack/react-router'
import { useEffect, useEffectEvent, useState } from 'react'
import { Button as AriaButton, Menu, MenuItem, MenuTrigger, Popover } from 'react-aria-components'
import { VALUE_PERIODS, type ValuePeriod } from '@leadline/shared/money'
import type { Organization } from '@leadline/shared/organization-schema'
import { Button, focusRing } from '../../components/ui/button'
import { DateRangeFields } from '../../components/ui/date-range-fields'
import { SelectField } from '../../components/ui/select-field'
import { fieldStyles, labelStyles, TextField } from '../../components/ui/text-field'
import { filtersOf, type BoardSearch } from './board-search'
import { cx } from '../../lib/cx'

type Member = Organization['memberships'][number]

const PERIOD_LABELS: Record<ValuePeriod, string> = { one_time: 'One-time', monthly: 'Monthly', annual: 'Annual' }
type FilterKeys = Pick<BoardSearch, 'owner' | 'period' | 'won_from' | 'won_to' | 'lead_query'>

const NO_FILTERS: FilterKeys = {
  owner: undefined,
  period: undefined,
  won_from: undefined,
  won_to: undefined,
  lead_query: undefined,
}
/** How long the lead search waits after the last key before it filters: a search per word, not per letter. */
const SEARCH_DELAY_MS = 400

/** The filters (in the URL, kept across pipelines and views) and a way to clear them all. */
export function BoardFilterBar({ search, members }: { search: BoardSearch; members: readonly Member[] }) {
  const navigate = useNavigate({ from: '/opportunities/' })
  const set = (change: FilterKeys) => {
    void navigate({ search: (prev) => ({ ...prev, ...change }) })
  }
  const isFiltered = Object.values(filtersOf(search)).some((value: string | undefined) => value !== undefined)
  return (
    <div role="group" aria-label="Filters" className="flex flex-wrap items-end gap-3">
      <OwnerPicker
        members={members}
        selected={search.owner?.split(',') ?? []}
        onChange={(ids) => {
          set({ owner: ids.length === 0 ? undefined : ids.join(',') })
        }}
      />
      <SelectField
        label="Value period"
        value={search.period ?? ''}
        emptyLabel="Any period"
        className="w-36"
        options={VALUE_PERIODS.map((p) => ({ value: p, label: PERIOD_LABELS[p] }))}
        onChange={(value) => {
          set({ period: VALUE_PERIODS.find((p) => p === value) })
        }}
      />
      <DateRangeFields
        fromLabel="Closing from"
        toLabel="Closing until"
        from={search.won_from}
        to={search.won_to}
        inputWidth="w-40"
        onChange={({ from, to }) => {
          set({ won_from: from, won_to: to })
        }}
      />
      <LeadQueryBox
        value={search.lead_query ?? ''}
        onSearch={(query) => {
          set({ lead_query: query === '' ? undefined : query })
        }}
      />
      {isFiltered ? (
        <Button
          onPress={() => {
            set(NO_FILTERS)
          }}
        >
          Clear filters
        </Button>
      ) : null}
    </div>
  )
}

/** Board or List: two links, so each view has its URL and the current one is `aria-current`. */
export function ViewSwitch() {
  const link = cx(
    'rounded px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-white aria-[current=page]:bg-white aria-[current=page]:text-indigo-700 aria-[current=page]:shadow-sm',
    focusRing,
  )
  return (
    <nav aria-label="View" className="flex gap-1 self-start rounded-md bg-slate-100 p-1">
      <Link
        to="/opportunities"
        search={(prev) => ({ ...prev, view: undefined })}
        activeOptions={{ exact: true }}
        className={link}
      >
        Board
      </Link>
      <Link
        to="/opportunities"
        search={(prev) => ({ ...prev, view: 'list' as const })}
        activeOptions={{ exact: true }}
        className={link}
      >
        List
      </Link>
    </nav>
  )
}

interface OwnerPickerProps {
  members: readonly Member[]
  selected: readonly string[]
  onChange: (ids: string[]) => void
}

/**
 * One or several owners: a menu of checkable names that stays open while choosing (the card's "Move to…" menu is
 * React Aria's Menu already, so this adds no code to load); the button says who is chosen.
 */
function OwnerPicker({ members, selected, onChange }: OwnerPickerProps) {
  const names = members.filter((m) => selected.includes(m.user_id)).map((m) => m.user_full_name)
  const summary = names.length === 1 ? (names[0] ?? '') : names.length > 1 ? `${String(names.length)} people` : 'Anyone'
  return (
    <div className="flex flex-col gap-1">
      <span className={labelStyles} aria-hidden="true">
        Owner
      </span>
      <MenuTrigger>
        <AriaButton
          aria-label={`Owner: ${summary}`}
          className={cx(fieldStyles({ width: 'w-44', ring: focusRing }), 'text-left')}
        >
          {summary} <span aria-hidden="true">▾</span>
        </AriaButton>
        <Popover
          placement="bottom start"
          className="max-h-80 min-w-56 overflow-y-auto rounded-md border border-slate-200 bg-white p-1 shadow-lg"
        >
          <Menu
            aria-label="Owners"
            selectionMode="multiple"
            shouldCloseOnSelect={false}
            selectedKeys={selected}
            onSelectionChange={(keys) => {
              onChange(keys === 'all' ? members.map((m) => m.user_id) : [...keys].map(String))
            }}
            className="outline-none"
          >
            {members.map((member) => (
              <MenuItem
                key={member.user_id}
                id={member.user_id}
                textValue={member.user_full_name}
                className="flex cursor-default items-center gap-2 rounded px-2 py-1 text-sm outline-none data-[focused]:bg-indigo-50 data-[focused]:text-indigo-800"
              >
                {({ isSelected }) => (
                  <>
                    <span aria-hidden="true" className="w-4 text-indigo-700">
                      {isSelected ? '✓' : ''}
                    </span>
                    {member.user_full_name}
                  </>
                )}
              </MenuItem>
            ))}
          </Menu>
        </Popover>
      </MenuTrigger>
    </div>
  )
}

/**
 * The lead search filters as one types, after a pause. The text follows the URL when it changes from elsewhere
 * (Clear filters, Back), but not when the URL catches up with what was typed.
 */
function LeadQueryBox({ value, onSearch }: { value: string; onSearch: (query: string) => void }) {
  const [text, setText] = useState(value)
  const [sent, setSent] = useState(value)
  const search = useEffectEvent(onSearch)
  if (value !== sent) {
    setSent(value)
    setText(value)
  }
  useEffect(() => {
    const query = text.trim()
    if (query === sent.trim()) return
    const timer = setTimeout(() => {
      setSent(query)
      search(query)
    }, SEARCH_DELAY_MS)
    return () => {
      clearTimeout(timer)
    }
  }, [text, sent])
  return (
    <TextField
      label="Lead search"
      value={text}
      onChange={setText}
      placeholder='acme, status:"potential"'
      className="w-64"
    />
  )
}
