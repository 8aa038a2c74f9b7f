import { queryOptions, type QueryKey } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import { api, type SearchParams } from './api'

/** A list the API answers whole, in one page, and the screens read as its items. */
export function wholeListQuery<T>(queryKey: QueryKey, path: string, params?: SearchParams) {
  return queryOptions({
    queryKey,
    queryFn: () => api.get<ListEnvelope<T>>(path, params),
    select: (page) => page.data,
  })
}

/** A setup list (pipelines, statuses, members, outcomes…): a whole list that changes rarely. */
export function setupListQuery<T>(queryKey: QueryKey, path: string, params?: SearchParams) {
  return queryOptions({ ...wholeListQuery<T>(queryKey, path, params), staleTime: 5 * 60_000 })
}
