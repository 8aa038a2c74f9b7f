/**
 * A response body that is already JSON text (a cached view): the serializer sends it as it is, and only a request
 * with `_fields` pays for parsing it back.
 */
export class RawJson {
  constructor(readonly text: string) {}

  parse(): unknown {
    return JSON.parse(this.text)
  }
}

/** A stored JSON object column (a row's type-specific `data`), as a fresh object; anything else reads as `{}`. */
export function parseJsonObject(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text)
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? { ...parsed } : {}
}
