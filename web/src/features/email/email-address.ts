// Email addresses as the composer takes them (typed, pasted, picked from the lead's contacts) and as the API
// writes them (`"Ann Smith" <ann@example.com>` or `ann@example.com`); no React, so the rules are unit-tested.
// One address is read as the API reads it, by the shared parser; what is typed is split into addresses here.

import { parseAddressList } from '@leadline/shared/email-address'

/** One mailbox: the address and the name shown with it ("" when none). */
export interface Address {
  name: string
  email: string
}

// Pragmatic, as mail clients check: something@domain.tld, without spaces or the characters that separate addresses.
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]+$/

/** Whether `text` is an address a message can be sent to. */
export function isEmailAddress(text: string): boolean {
  return text.length <= 254 && EMAIL.test(text)
}

/** `Ann Smith <ann@example.com>`, `"Smith, Ann" <ann@example.com>` or `ann@example.com`; undefined when invalid. */
export function parseAddress(text: string): Address | undefined {
  const entries = parseAddressList(text)
  const [only] = entries
  if (entries.length !== 1 || only === undefined || only.group !== undefined) return undefined
  if (!isEmailAddress(only.address)) return undefined
  return { name: only.name, email: only.address }
}

/** What was typed or pasted, split at commas, semicolons and line breaks outside quotes and angle brackets. */
export function splitAddresses(text: string): string[] {
  const parts: string[] = []
  let current = ''
  let quoted = false
  let angled = false
  for (const char of text) {
    if (char === '"') quoted = !quoted
    else if (char === '<' && !quoted) angled = true
    else if (char === '>' && !quoted) angled = false
    if (!quoted && !angled && (char === ',' || char === ';' || char === '\n')) {
      parts.push(current)
      current = ''
    } else current += char
  }
  parts.push(current)
  return parts.map((p) => p.trim()).filter((p) => p !== '')
}

/** Every address in `text`, and the pieces that are none. */
export function parseAddresses(text: string): { addresses: Address[]; invalid: string[] } {
  const addresses: Address[] = []
  const invalid: string[] = []
  for (const part of splitAddresses(text)) {
    const address = parseAddress(part)
    if (address === undefined) invalid.push(part)
    else addresses.push(address)
  }
  return { addresses, invalid }
}

/** The address as the API takes it: the name quoted (so commas and dots in it are safe), or the bare address. */
export function formatAddress({ name, email }: Address): string {
  return name === '' ? email : `"${name.replace(/["\\]/g, '\\$&')}" <${email}>`
}

/** The address as people read it: "Ann Smith <ann@example.com>", or the bare address. */
export function addressLabel({ name, email }: Address): string {
  return name === '' ? email : `${name} <${email}>`
}

/** Whether two addresses are the same mailbox (addresses compare without case). */
export function sameMailbox(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}
