// The leads list's search params (they live in the URL); no React, so the rules are unit-tested.

export interface LeadSearch {
  query?: string | undefined
  /** The list scrolls rather than pages: an old link's `page` is dropped from the URL. */
  page?: undefined
  /** The Smart View open (`/leads?smart_view=save_…`): its query is the search unless `query` is in the URL too. */
  smart_view?: string | undefined
}

/**
 * Every key is always present: the router merges what validateSearch returns over the raw params, so a value it
 * rejects must be overwritten with undefined, not left out.
 */
export function leadSearchOf(search: Record<string, unknown>): LeadSearch {
  const { query, smart_view } = search
  return {
    query: typeof query === 'string' && query.trim() !== '' ? query : undefined,
    page: undefined,
    smart_view: typeof smart_view === 'string' && /^save_[0-9A-Za-z]{1,64}$/.test(smart_view) ? smart_view : undefined,
  }
}
