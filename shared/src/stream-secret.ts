// LEADLINE_STREAM_SECRET: what the BFF shows the API so that any signed-in user's key may follow the organization's
// event stream (decision 0022). The api and the BFF read it by the same rule.

/** The header the secret travels in. */
export const STREAM_SECRET_HEADER = 'x-leadline-stream-secret'

/** The secret, or undefined when unset; a value too short to be safe, or unfit for a header, throws. */
export function streamSecretFrom(env: Record<string, string | undefined>): string | undefined {
  const text = env.LEADLINE_STREAM_SECRET
  if (text === undefined || text === '') return undefined
  if (!/^[\x21-\x7e]{32,256}$/.test(text))
    throw new Error(
      'LEADLINE_STREAM_SECRET must be 32 to 256 printable characters without spaces (e.g. `openssl rand -hex 32`)',
    )
  return text
}
