/**
 * The only HTTP client. It speaks to the BFF on the same origin: `/auth/…` for the session and `/api/v1/…`, which the
 * BFF proxies to the CRM API with the user's key (the browser never sees it). It throws `ApiError` and never shows
 * a toast or redirects: callers and the query client decide what a failure means.
 */

import { API_BASE, withQuery, type QueryValue } from '@leadline/shared/first-screen-requests'
import { readsOnServer, takePageAnswer } from './page-answers'
import { isRecord } from './record'

export { API_BASE }

/** Every request to the BFF carries this header; the BFF refuses `/api/` and `/auth/` requests without it (CSRF). */
export const CSRF_HEADER = { 'X-Requested-With': 'leadline' } as const

export type SearchParams = Record<string, QueryValue>

export class ApiError extends Error {
  readonly status: number
  readonly body: unknown
  /** Validation errors by dotted field path (`name`, `contacts.0.emails.0.email`), empty otherwise. */
  readonly fieldErrors: Record<string, string>

  constructor(status: number, body: unknown) {
    super(errorMessage(status, body))
    this.name = 'ApiError'
    this.status = status
    this.body = body
    this.fieldErrors = fieldErrorsOf(body)
  }
}

export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status)
}

/** The message to show for one field after a failed save: its own field error, else the first, else the error's. */
export function saveErrorMessage(error: unknown, field: string): string {
  if (!isApiError(error)) return error instanceof Error ? error.message : 'The change was not saved.'
  return error.fieldErrors[field] ?? Object.values(error.fieldErrors)[0] ?? error.message
}

function fieldErrorsOf(body: unknown): Record<string, string> {
  const raw = isRecord(body) ? body['field-errors'] : undefined
  if (!isRecord(raw)) return {}
  const errors: Record<string, string> = {}
  for (const [key, message] of Object.entries(raw)) if (typeof message === 'string') errors[key] = message
  return errors
}

function errorMessage(status: number, body: unknown): string {
  if (isRecord(body)) {
    const { error, errors } = body
    if (typeof error === 'string') return error
    // A 429 nests its message.
    if (isRecord(error) && typeof error.message === 'string') return error.message
    if (Array.isArray(errors) && typeof errors[0] === 'string') return errors[0]
    if (Object.keys(fieldErrorsOf(body)).length > 0) return 'Some fields need attention.'
  }
  if (status === 0) return 'The server cannot be reached. Check your connection.'
  return `The request failed (${status}).`
}

/**
 * A body is sent as JSON, except a file (a Blob), which is sent as its bytes with its own type. An aborted request
 * (TanStack Query aborts one no screen waits for any more) rejects with the fetch's own AbortError.
 */
async function request(method: string, url: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
  const onServer = readsOnServer()
  if (onServer !== undefined) return onServer(method, url)
  // The first read of an address the page came with the answer to (the BFF made it as it sent the page).
  const answered = method === 'GET' ? takePageAnswer(url) : undefined
  if (answered !== undefined) return answered
  const headers: Record<string, string> = { ...CSRF_HEADER, Accept: 'application/json' }
  const file = body instanceof Blob
  if (body !== undefined)
    headers['Content-Type'] = !file ? 'application/json' : body.type === '' ? 'application/octet-stream' : body.type
  let response: Response
  try {
    response = await fetch(url, {
      method,
      headers,
      body: file ? body : body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal: signal ?? null,
    })
  } catch (error) {
    if (signal?.aborted === true) throw error
    throw new ApiError(0, null)
  }
  const text = await response.text()
  let parsed: unknown = null
  if (text !== '') {
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = text
    }
  }
  if (!response.ok) throw new ApiError(response.status, parsed)
  return parsed
}

/*
 * The generic parameter is trusted, not checked: the BFF passes the API's responses through unchanged and the API
 * serializes them from the same schemas `@leadline/shared` exports. This is the single place that trust is placed
 * (and api-upload.ts, its one sibling).
 */
function typed<T>(method: string, url: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  return request(method, url, body, signal) as Promise<T>
}

/** The CRM API under `/api/v1/`; paths are relative (`lead/`, `lead/lead_…/`). */
export const api = {
  /** `signal`: the query function's, so that a request for what the screen no longer shows is cancelled. */
  get: <T>(path: string, params?: SearchParams, signal?: AbortSignal) =>
    typed<T>('GET', withQuery(API_BASE + path, params), undefined, signal),
  post: <T>(path: string, body: unknown) => typed<T>('POST', API_BASE + path, body),
  put: <T>(path: string, body: unknown) => typed<T>('PUT', API_BASE + path, body),
  delete: (path: string) => typed<unknown>('DELETE', API_BASE + path),
  /** POSTs a file's raw bytes, its type as `Content-Type`; `path` may carry a query. */
  upload: <T>(path: string, file: Blob) => typed<T>('POST', API_BASE + path, file),
}

/** The BFF's own session endpoints under `/auth/`. */
export const authApi = {
  get: <T>(path: string) => typed<T>('GET', `/auth/${path}`),
  post: <T>(path: string, body: unknown) => typed<T>('POST', `/auth/${path}`, body),
  put: <T>(path: string, body: unknown) => typed<T>('PUT', `/auth/${path}`, body),
  delete: (path: string) => typed<unknown>('DELETE', `/auth/${path}`),
}
