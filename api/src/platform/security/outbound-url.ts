import { isIP } from 'node:net'
import { privateAddressOf, type Resolver } from './host-check.js'
import { isPrivateAddress } from './private-address.js'

export const WEBHOOK_URL_MAX = 2000
const PRIVATE_TARGET = 'Must not point to a loopback, private, link-local or reserved address.'

/**
 * Why a subscription may not POST to `raw`, or undefined when it may. Only `https://` URLs without credentials,
 * and not to this machine or a private network as far as the URL itself says (`webhookTargetProblem` resolves the
 * name, and every delivery checks again when it connects). `allowPrivate` (LEADLINE_OUTBOUND_ALLOW_PRIVATE) also lets `http://`,
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
  if (isIP(address) !== 0 && isPrivateAddress(address)) return PRIVATE_TARGET
  return undefined
}

/**
 * `webhookUrlProblem`, and then, for a URL it accepts, whether its host name resolves to an address the delivery
 * guard refuses (`vm`, in /etc/hosts as 127.0.0.1), so the admin hears it when saving. A name that does not resolve
 * in time passes: every delivery checks it again when it connects.
 */
export async function webhookTargetProblem(
  raw: string,
  allowPrivate: boolean,
  resolve: Resolver,
): Promise<string | undefined> {
  const problem = webhookUrlProblem(raw, allowPrivate)
  if (problem !== undefined || allowPrivate) return problem
  const host = new URL(raw).hostname
  if (host.startsWith('[') || isIP(host) !== 0) return undefined
  const inside = await privateAddressOf(host, resolve)
  return inside === undefined ? undefined : `${PRIVATE_TARGET.slice(0, -1)}: ${host} resolves to ${inside}.`
}
