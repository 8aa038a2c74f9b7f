// The API reads a screen of the web app starts with, known from its address alone. The BFF makes them while it sends
// a signed-in browser the app's page and writes their answers into it (bff/src/page-answers.ts); the web app takes
// each from there the first time it asks for exactly that address (web/src/lib/page-answers.ts), instead of waiting
// for a round trip after its code has run. A web test holds this list to what the screens' loaders really ask for:
// a request missing here only goes over the network as before, one listed here that no screen asks for is waste.

/** The id of the page's data block of answers, which the BFF writes and the web app reads. */
export const PAGE_ANSWERS_ELEMENT_ID = 'leadline-answers'

/** Where the CRM API is, as the browser and the BFF's proxy address it. */
export const API_BASE = '/api/v1/'

/** Leads a page of the leads list holds. */
export const LEADS_PER_PAGE = 50

/** Tasks a page of the inbox (and a lead's open tasks) holds. */
export const TASKS_PER_PAGE = 200

export type QueryValue = string | number | boolean | undefined

/**
 * `path` with `params` as its query string, in the order given, values that are undefined or empty left out: the one
 * way the web app and the BFF write an API address, so that the same read is written the same way by both.
 */
export function withQuery(path: string, params?: Readonly<Record<string, QueryValue>>): string {
  if (params === undefined) return path
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') query.set(key, String(value))
  const text = query.toString()
  return text === '' ? path : `${path}?${text}`
}

/** Who the page is for. */
export interface ScreenViewer {
  userId: string
  organizationId: string
  /** Their calendar date (`YYYY-MM-DD`) in their own time zone: the reports' default range is this year. */
  today: string
}

/** A lead's page: `/leads/lead_…`. Ids are letters and digits after the prefix; bounded, nothing to backtrack. */
const LEAD_PAGE = /^\/leads\/(lead_[0-9A-Za-z]{1,64})\/?$/

const api = (path: string, params?: Readonly<Record<string, QueryValue>>) => withQuery(API_BASE + path, params)

const LEAD_STATUSES = api('status/lead/')
const LEAD_FIELDS = api('custom_field/lead/', { _limit: 100 })

/** A calendar date's shape; anything else gives no report reads (they would not be the screen's). */
const DAY = /^\d{4}-\d\d-\d\d$/

/**
 * The report's reads with none of its parameters (web/src/features/reports/report-search.ts): this year's
 * opportunities won, by month, at any status (the sums of all of them, and of those won beside them).
 */
function defaultReport(viewer: ScreenViewer): string[] {
  if (!DAY.test(viewer.today)) return []
  const year = viewer.today.slice(0, 4)
  const groups = (statusType?: string) =>
    api('opportunity/', {
      status_type: statusType,
      date_won__gte: `${year}-01-01`,
      date_won__lte: `${year}-12-31`,
      _group_by: 'date_won__month',
      _limit: 0,
    })
  return [groups(), groups('won')]
}

/**
 * The API addresses (under API_BASE, with their queries) the screen at `pathname` reads first, for `viewer`. What a
 * screen reads only for some of its `search` parameters (a search, a filter, another tab) is left out when the address
 * has any: the plain address of each screen is the one opened most, from the header's links.
 */
export function firstScreenRequests(pathname: string, search: URLSearchParams, viewer: ScreenViewer): string[] {
  const plain = search.size === 0
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname
  switch (path) {
    // The app's root goes to the leads list.
    case '/':
    case '/leads':
      return [
        LEAD_STATUSES,
        api('saved_search/', { type: 'lead', _limit: 100 }),
        LEAD_FIELDS,
        ...(plain ? [api('lead/', { _skip: 0, _limit: LEADS_PER_PAGE })] : []),
      ]
    case '/inbox':
      return plain
        ? [
            api('task/', {
              view: 'inbox',
              _type: 'all',
              assigned_to: viewer.userId,
              _order_by: 'date',
              _skip: 0,
              _limit: TASKS_PER_PAGE,
            }),
          ]
        : []
    case '/opportunities':
      return [api('pipeline/', { _limit: 100 }), api(`organization/${encodeURIComponent(viewer.organizationId)}/`)]
    case '/settings':
    case '/settings/pipelines':
      return [api('pipeline/')]
    case '/reports':
      return [
        api('pipeline/', { _limit: 100 }),
        api('user/', { _limit: 1000 }),
        api(`organization/${encodeURIComponent(viewer.organizationId)}/`),
        ...(plain ? defaultReport(viewer) : []),
      ]
  }
  const lead = LEAD_PAGE.exec(path)?.[1]
  if (lead === undefined) return []
  return [
    ...(plain ? [api('activity/', { lead_id: lead, _limit: 100 })] : []),
    api('task/', { lead_id: lead, _type: 'all', is_complete: false, _order_by: 'date', _limit: TASKS_PER_PAGE }),
    LEAD_STATUSES,
    LEAD_FIELDS,
    api('custom_field/contact/', { _limit: 100 }),
    api(`lead/${lead}/`),
  ]
}
