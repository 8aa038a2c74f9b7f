import { queryOptions } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import { api } from '../../lib/api'
import { leadQueries } from '../leads/lead-queries'
import { paletteLeadParams, type PaletteLead } from './palette-search'

export const paletteQueries = {
  /**
   * Under the leads' key, so a change to any lead refreshes it. The query's signal goes with the request: typing on
   * cancels the search for what was typed before.
   */
  leads: (query: string) =>
    queryOptions({
      queryKey: [...leadQueries.all(), 'palette', query],
      queryFn: ({ signal }) => api.get<ListEnvelope<PaletteLead>>('lead/', paletteLeadParams(query), signal),
      select: (page) => page.data,
      staleTime: 30_000,
    }),
}
