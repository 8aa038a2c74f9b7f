import { queryOptions, type QueryKey } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import { api, type SearchParams } from './api'

/** A setup list (pipelines, statuses, members, outcomes…): changes rarely, is fetched whole and read as its items. */
export function setupListQuery<T>(queryKey: QueryKey, path: string, params?: SearchParams) {
  return queryOptions({
    queryKey,
    queryFn: () => api.get<ListEnvelope<T>>(path, params),
    staleTime: 5 * 60_000,
    select: (page) => page.data,
  })
}
