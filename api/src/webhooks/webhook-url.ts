import { isIP } from 'node:net'
import { isPrivateAddress } from '../outbound/private-address.js'

export const WEBHOOK_URL_MAX = 2000

/**
 * Why a subscription may not POST to `raw`, or undefined when it may. Only `https://` URLs without credentials,
 * and not to this machine or a private network as far as the URL itself says (a name that resolves to one is
 * refused when a delivery connects). `allowPrivate` (LEADLINE_OUTBOUND_ALLOW_PRIVATE) also lets `http://`,
 * `localhost` and private addresses through, for local development and tests; other schemes never.
 */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'Enter a valid URL.'
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'Must be an https:// URL.'
  if (url.username !== '' || url.password !== '') return 'Must not carry a user name or password.'
  if (allowPrivate) return undefined
  const host = url.hostname.replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return 'Must not point to this machine.'
  const address = host.startsWith('[') ? host.slice(1, -1) : host
  if (isIP(address) !== 0 && isPrivateAddress(address))
    return 'Must not point to a loopback, private, link-local or reserved address.'
  return undefined
}
