import { queryOptions } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import type { SavedSearch } from '@leadline/shared/saved-search-schema'
import { api } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'

// Smart Views (`/saved_search/`): the organization's shared ones and the user's own, as the leads list shows them.

const viewPath = (id: string) => `saved_search/${encodeURIComponent(id)}/`

export const savedSearchQueries = {
  all: () => ['saved-searches'] as const,
  /** The lead views the user may open (a user keeps a few dozen at most: one page of 100). */
  list: () =>
    queryOptions({
      queryKey: [...savedSearchQueries.all(), 'list'],
      queryFn: () => api.get<ListEnvelope<SavedSearch>>('saved_search/', { type: 'lead', _limit: 100 }),
    }),
  one: (id: string) =>
    queryOptions({
      queryKey: [...savedSearchQueries.all(), 'one', id],
      queryFn: () => api.get<SavedSearch>(viewPath(id)),
    }),
}

export interface ViewChange {
  name?: string
  query?: string | null
  is_shared?: boolean
  selected_fields?: { id: string }[]
}

export function useCreateView() {
  return useFormMutation(savedSearchQueries.all(), (view: ViewChange & { name: string }) =>
    api.post<SavedSearch>('saved_search/', { type: 'lead', ...view }),
  )
}

export function useChangeView() {
  return useFormMutation(savedSearchQueries.all(), ({ id, ...change }: ViewChange & { id: string }) =>
    api.put<SavedSearch>(viewPath(id), change),
  )
}

export function useDeleteView() {
  return useFormMutation(savedSearchQueries.all(), (id: string) => api.delete(viewPath(id)))
}
