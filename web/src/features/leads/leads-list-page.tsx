import { useSuspenseQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { lazy, Suspense, useState, type SubmitEvent } from 'react'
import { Input, Label, TextField } from 'react-aria-components'
import { Button } from '../../components/ui/button'
import { EmptyState } from '../../components/ui/feedback'
import { inputStyles } from '../../components/ui/text-field'
import { formatDateTime, formatRelative } from '../../lib/format'
import { leadQueries, LEADS_PER_PAGE, type LeadSearch } from './lead-queries'

// The dialog (and React Aria's modal code) loads when first opened, keeping the list inside the first-route budget.
const NewLeadDialog = lazy(() => import('./lead-form').then((m) => ({ default: m.NewLeadDialog })))

export function LeadsListPage({ search }: { search: LeadSearch }) {
  const { data } = useSuspenseQuery(leadQueries.list(search))
  const navigate = useNavigate({ from: '/leads/' })
  const [isCreating, setCreating] = useState(false)
  const page = search.page ?? 1
  const first = (page - 1) * LEADS_PER_PAGE + 1
  const last = first + data.data.length - 1

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold text-slate-900">Leads</h1>
        <Button
          variant="primary"
          onPress={() => {
            setCreating(true)
          }}
        >
          New lead
        </Button>
      </div>
      <LeadSearchBox
        key={search.query ?? ''}
        initial={search.query ?? ''}
        onSearch={(query) => {
          void navigate({ search: query === '' ? {} : { query } })
        }}
      />
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
        {data.data.length === 0 ? (
          <EmptyState title={search.query === undefined ? 'No leads yet' : 'No leads match this search'}>
            {search.query === undefined
              ? 'Create the first one with “New lead”.'
              : 'Try fewer words, or a field such as name:acme or status:"potential".'}
          </EmptyState>
        ) : (
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Leads</caption>
            <thead className="border-b border-slate-200 bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase">
              <tr>
                <th scope="col" className="px-4 py-2.5">
                  Name
                </th>
                <th scope="col" className="px-4 py-2.5">
                  Status
                </th>
                <th scope="col" className="px-4 py-2.5">
                  Primary contact
                </th>
                <th scope="col" className="px-4 py-2.5">
                  Updated
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {data.data.map((lead) => {
                const contact = lead.contacts[0]
                return (
                  <tr key={lead.id} className="hover:bg-slate-50">
                    <td className="px-4 py-2.5">
                      <Link
                        to="/leads/$leadId"
                        params={{ leadId: lead.id }}
                        className="font-medium text-indigo-700 hover:underline"
                      >
                        {lead.display_name === '' ? 'Unnamed lead' : lead.display_name}
                      </Link>
                    </td>
                    <td className="px-4 py-2.5">
                      <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700">
                        {lead.status_label}
                      </span>
                    </td>
                    <td className="px-4 py-2.5 text-slate-700">
                      {contact === undefined ? (
                        <span className="text-slate-400">—</span>
                      ) : (
                        <>
                          {contact.display_name}
                          {contact.emails[0] === undefined ? null : (
                            <span className="block text-xs text-slate-500">{contact.emails[0].email}</span>
                          )}
                        </>
                      )}
                    </td>
                    <td className="px-4 py-2.5 whitespace-nowrap text-slate-600">
                      <time dateTime={lead.date_updated} title={formatDateTime(lead.date_updated)}>
                        {formatRelative(lead.date_updated)}
                      </time>
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        )}
      </div>
      <nav aria-label="Pages" className="flex items-center justify-between gap-3 text-sm text-slate-600">
        <p aria-live="polite">
          {data.total_results === 0
            ? '0 leads'
            : `${first}–${last} of ${data.total_results} ${data.total_results === 1 ? 'lead' : 'leads'}`}
        </p>
        <div className="flex gap-2">
          <Button
            size="sm"
            isDisabled={page <= 1}
            onPress={() => {
              void navigate({ search: (prev) => ({ ...prev, page: page - 1 > 1 ? page - 1 : undefined }) })
            }}
          >
            Previous
          </Button>
          <Button
            size="sm"
            isDisabled={!data.has_more}
            onPress={() => {
              void navigate({ search: (prev) => ({ ...prev, page: page + 1 }) })
            }}
          >
            Next
          </Button>
        </div>
      </nav>
      {isCreating ? (
        <Suspense fallback={null}>
          <NewLeadDialog isOpen onOpenChange={setCreating} />
        </Suspense>
      ) : null}
    </div>
  )
}

function LeadSearchBox({ initial, onSearch }: { initial: string; onSearch: (query: string) => void }) {
  const [text, setText] = useState(initial)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    onSearch(text.trim())
  }
  return (
    <form role="search" onSubmit={submit} className="flex gap-2">
      {/* A plain textbox, not type=search: the query language is text, and the label is what tests find. */}
      <TextField value={text} onChange={setText} className="flex-1">
        <Label className="sr-only">Search leads</Label>
        <Input
          placeholder='Search leads: acme, status:"potential", email:@acme.com, created > "last week"'
          className={inputStyles}
        />
      </TextField>
      <Button type="submit">Search</Button>
    </form>
  )
}
