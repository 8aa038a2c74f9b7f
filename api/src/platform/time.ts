export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/** The wire and storage form of an instant: `2017-09-29T10:40:23.140000+00:00`. */
export function formatTimestamp(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00')
}
