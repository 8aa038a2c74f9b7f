import { useSuspenseQuery } from '@tanstack/react-query'
import { phoneQueries } from '../phone/phone-queries'
import { orderedNamesPage } from './ordered-names-screen'
import { useDeleteOutcome, useReorderOutcomes, useSaveOutcome } from './organization-mutations'

/** What came of a call, in the order the call form offers them. */
export const CallOutcomesPage = orderedNamesPage({
  title: 'Call outcomes',
  description: 'What came of a call or a meeting. Reps pick one when they log a call, from this list in this order.',
  noun: 'call outcome',
  ifNone: 'No call outcomes yet.',
  display: (outcome) => (
    <span className="flex flex-col">
      <span className="font-medium">{outcome.name}</span>
      {outcome.description === null ? null : <span className="text-xs text-slate-500">{outcome.description}</span>}
    </span>
  ),
  consequence: 'Reps can no longer pick it. Calls already logged with it keep it.',
  field: 'name',
  // The sortable list names its items by `label`.
  useItems: () =>
    useSuspenseQuery(phoneQueries.outcomes()).data.map((outcome) => ({ ...outcome, label: outcome.name })),
  useSave: useSaveOutcome,
  useDelete: useDeleteOutcome,
  useReorder: useReorderOutcomes,
})
