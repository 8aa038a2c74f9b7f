// The leads list's search params (they live in the URL); no React, so the rules are unit-tested.

export interface LeadSearch {
  query?: string | undefined
  /** 1-based; page 1 is left out of the URL. */
  page?: number | undefined
}

/**
 * Both keys are always present: the router merges what validateSearch returns over the raw params, so a value it
 * rejects (`page=0`, `page=abc`) must be overwritten with undefined, not left out.
 */
export function leadSearchOf(search: Record<string, unknown>): LeadSearch {
  const { query, page } = search
  const number = typeof page === 'number' || typeof page === 'string' ? Number(page) : NaN
  return {
    query: typeof query === 'string' && query.trim() !== '' ? query : undefined,
    page: Number.isSafeInteger(number) && number > 1 ? number : undefined,
  }
}
