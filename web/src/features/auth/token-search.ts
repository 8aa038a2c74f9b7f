// The search params of the pages a mailed link opens (`/accept-invitation?token=…`, `/reset-password?token=…`); no
// React, so the rule is unit-tested.

export interface TokenSearch {
  /** The link's secret, when it looks like one; anything else is no token at all. */
  token?: string | undefined
}

const MAX_TOKEN_LENGTH = 200
const TOKEN_CHARACTERS = /^[A-Za-z0-9_-]+$/

/**
 * Keeps `token` only when it is base62 or base64url text of a sane length: a mangled link then reads as an invalid
 * one at once, with no request. The key is always present, so a refused value overwrites the raw param.
 */
export function tokenSearchOf(search: Record<string, unknown>): TokenSearch {
  const { token } = search
  const valid = typeof token === 'string' && token.length <= MAX_TOKEN_LENGTH && TOKEN_CHARACTERS.test(token)
  return { token: valid ? token : undefined }
}
