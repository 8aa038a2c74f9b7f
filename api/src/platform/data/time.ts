export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/**
 * The wire and storage form of an instant: `2017-09-29T10:40:23.140000+00:00`. `toISOString` always ends in
 * milliseconds and `Z`, so the `Z` becomes three more digits and the offset (a slice, not a regular expression:
 * every write formats timestamps, the demo seed millions of them).
 */
export function formatTimestamp(at: Date): string {
  return `${at.toISOString().slice(0, -1)}000+00:00`
}

/** The field error of a timestamp `parseTimestamp` cannot read. */
export const TIMESTAMP_EXPECTED = 'Enter a date (YYYY-MM-DD) or an ISO 8601 timestamp.'

const ISO_LIKE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/**
 * A date (`YYYY-MM-DD`, its midnight UTC) or ISO 8601 timestamp (UTC unless it says otherwise) in the stored wire
 * form, so text comparison is time comparison; undefined when it is neither.
 */
export function parseTimestamp(value: string): string | undefined {
  if (!ISO_LIKE.test(value)) return undefined
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(value) && value.includes('T')
  const parsed = new Date(value.includes('T') ? (hasZone ? value : `${value}Z`) : `${value}T00:00:00Z`)
  return Number.isNaN(parsed.getTime()) ? undefined : formatTimestamp(parsed)
}
