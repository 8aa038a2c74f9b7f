import { createHash } from 'node:crypto'
import { randomBase62 } from './ids.js'

// The token of a link emailed to be followed once (an address's verification, an invitation, a password reset):
// 43 random base62 characters (256 bits), stored only as its SHA-256, so a copy of the database follows no link.

export const LINK_TOKEN_LENGTH = 43

/** A new token and the hash to store for it. */
export function newLinkToken(): { token: string; hash: string } {
  const token = randomBase62(LINK_TOKEN_LENGTH)
  return { token, hash: linkTokenHash(token) }
}

/** The stored form of a token: its SHA-256, hex. Links are looked up by it, never by the token itself. */
export function linkTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
