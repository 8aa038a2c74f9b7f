// Narrowing for data whose shape the types do not promise: response bodies, and fields the schemas do not list yet.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The first of these keys that holds a non-empty string. */
export function textOf(item: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = item[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}
