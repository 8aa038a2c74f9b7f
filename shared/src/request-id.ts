// Request ids (decision 0074): the BFF gives each request one, or takes its trusted proxy's, sends it to the api on
// every call it makes for that request, and both processes write it on that request's log lines and answer it in
// `X-Request-Id`. An id is not a credential: it is taken only when it is short and plain, so that it cannot forge or
// break a log line.

export const REQUEST_ID_HEADER = 'x-request-id'
export const MAX_REQUEST_ID_LENGTH = 64

/** 1 to 64 characters, each a letter, a digit, `-`, `_` or `.`; checked a character at a time. */
export function isRequestId(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_REQUEST_ID_LENGTH) return false
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    const plain =
      (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95 || c === 46
    if (!plain) return false
  }
  return true
}
