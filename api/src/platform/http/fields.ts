/**
 * `_fields=id,name` keeps only those keys of a single object, or of each item of a list envelope.
 * Applied once, to every response, by the platform.
 */
export function parseFields(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined
  const fields = raw
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '')
  return fields.length === 0 ? undefined : fields
}

function pick(value: unknown, fields: string[]): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const source = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const field of fields) {
    if (field === 'custom') {
      // `custom` selects every custom field, in both the `custom.<id>` and the dictionary form.
      for (const key of Object.keys(source)) if (key === 'custom' || key.startsWith('custom.')) out[key] = source[key]
    } else if (field in source) {
      out[field] = source[field]
    }
  }
  return out
}

function isListEnvelope(value: object): value is { has_more: boolean; data: unknown[] } {
  return 'has_more' in value && 'data' in value && Array.isArray((value as { data: unknown }).data)
}

export function projectFields(payload: unknown, fields: string[]): unknown {
  if (typeof payload !== 'object' || payload === null) return payload
  if (isListEnvelope(payload)) return { ...payload, data: payload.data.map((item) => pick(item, fields)) }
  return pick(payload, fields)
}
