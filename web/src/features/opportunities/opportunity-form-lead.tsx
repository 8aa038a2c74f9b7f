import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import {
  Button as AriaButton,
  ComboBox,
  FieldError,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
} from 'react-aria-components'
import type { ListEnvelope } from '@leadline/shared/list'
import { inputStyles, labelStyles } from '../../components/ui/text-field'
import { api } from '../../lib/api'
import { leadQueries } from '../leads/lead-queries'

interface LeadName {
  id: string
  display_name: string
}

const SEARCH_DELAY_MS = 250

/** Up to ten leads matching what was typed (all leads, first ten, before anything is); under the leads' key. */
function leadNames(query: string) {
  return queryOptions({
    queryKey: [...leadQueries.all(), 'names', query],
    queryFn: () => api.get<ListEnvelope<LeadName>>('lead/', { query, _fields: 'id,display_name', _limit: 10 }),
    select: (page) => page.data,
  })
}

export interface LeadComboBoxProps {
  leadId: string
  onChange: (leadId: string) => void
  error: string | undefined
}

/** Chooses the lead of a new opportunity by searching the leads as one types (a request per pause, not per key). */
export function LeadComboBox({ leadId, onChange, error }: LeadComboBoxProps) {
  const [text, setText] = useState('')
  const [query, setQuery] = useState('')
  useEffect(() => {
    const timer = setTimeout(() => {
      setQuery(text.trim())
    }, SEARCH_DELAY_MS)
    return () => {
      clearTimeout(timer)
    }
  }, [text])
  const leads = useQuery({ ...leadNames(query), placeholderData: keepPreviousData })
  return (
    <ComboBox
      className="flex flex-col gap-1"
      items={leads.data ?? []}
      inputValue={text}
      onInputChange={setText}
      value={leadId === '' ? null : leadId}
      onChange={(key) => {
        onChange(typeof key === 'string' ? key : '')
      }}
      // The API searched already (names, contacts, emails); a match need not contain the text.
      defaultFilter={() => true}
      menuTrigger="focus"
      allowsEmptyCollection
      isInvalid={error !== undefined}
    >
      <Label className={labelStyles}>Lead</Label>
      <div className="relative">
        <Input className={inputStyles} placeholder="Search leads…" autoFocus />
        <AriaButton
          aria-label="Show leads"
          className="absolute inset-y-0 right-0 px-2 text-slate-500 outline-none focus-visible:text-indigo-700"
        >
          <span aria-hidden="true">▾</span>
        </AriaButton>
      </div>
      <FieldError className="text-sm text-red-700">{error}</FieldError>
      <Popover className="w-(--trigger-width) rounded-md border border-slate-200 bg-white p-1 shadow-lg">
        <ListBox
          className="max-h-64 overflow-y-auto outline-none"
          renderEmptyState={() => (
            <p className="px-2 py-1 text-sm text-slate-500">{leads.isFetching ? 'Searching…' : 'No leads found.'}</p>
          )}
        >
          {(lead: LeadName) => (
            <ListBoxItem
              id={lead.id}
              textValue={lead.display_name || 'Unnamed lead'}
              className="cursor-default rounded px-2 py-1 text-sm outline-none data-[focused]:bg-indigo-50 data-[focused]:text-indigo-800 data-[selected]:font-medium"
            >
              {lead.display_name || 'Unnamed lead'}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  )
}
