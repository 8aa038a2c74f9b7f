// The leads list's search params (they live in the URL); no React, so the rules are unit-tested.

export interface LeadSearch {
  query?: string | undefined
  /** 1-based; page 1 is left out of the URL. */
  page?: number | undefined
  /** The Smart View open (`/leads?smart_view=save_…`): its query is the search unless `query` is in the URL too. */
  smart_view?: string | undefined
}

/**
 * Both keys are always present: the router merges what validateSearch returns over the raw params, so a value it
 * rejects (`page=0`, `page=abc`) must be overwritten with undefined, not left out.
 */
export function leadSearchOf(search: Record<string, unknown>): LeadSearch {
  const { query, page, smart_view } = search
  const number = typeof page === 'number' || typeof page === 'string' ? Number(page) : NaN
  return {
    query: typeof query === 'string' && query.trim() !== '' ? query : undefined,
    page: Number.isSafeInteger(number) && number > 1 ? number : undefined,
    smart_view: typeof smart_view === 'string' && /^save_[0-9A-Za-z]{1,64}$/.test(smart_view) ? smart_view : undefined,
  }
}
