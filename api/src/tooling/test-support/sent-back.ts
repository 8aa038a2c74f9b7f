/** What a save may change by itself: when and by whom. */
const UPDATE_FIELDS = new Set(['date_updated', 'updated_by', 'updated_by_name'])

/**
 * An object as an API answered it, without what a save changes by itself (at any depth: a lead's nested contacts
 * too), to compare an object sent back as it was read with the object before.
 */
export function withoutUpdate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUpdate)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !UPDATE_FIELDS.has(key))
      .map(([key, inner]) => [key, withoutUpdate(inner)]),
  )
}
