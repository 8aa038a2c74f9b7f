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
