import type { LookupAddress } from 'node:dns'
import { withDeadline } from '@leadline/shared/deadline'
import { isPrivateAddress } from './private-address.js'

/** Resolves a host name to every address it has (dns.lookup with `all`, unless a test gives its own). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>

/** How long a check made while an admin waits (saving a webhook) waits for the name to resolve. */
export const HOST_CHECK_TIMEOUT_MS = 2000

/** The first of a name's addresses the outbound guard refuses, if any. */
export function privateAddressAmong(addresses: readonly LookupAddress[]): LookupAddress | undefined {
  return addresses.find((a) => isPrivateAddress(a.address))
}

/**
 * The private address `hostname` resolves to now, if any, as the guard would find it at connect time. A name that
 * does not resolve, or not within `timeoutMs`, answers undefined: the guard checks it again on every connection,
 * so this early check only spares the admin a surprise and never lets anything through.
 */
export async function privateAddressOf(
  hostname: string,
  resolve: Resolver,
  timeoutMs = HOST_CHECK_TIMEOUT_MS,
): Promise<string | undefined> {
  const addresses = await withDeadline(
    resolve(hostname).catch(() => undefined),
    timeoutMs,
    undefined,
  )
  return addresses === undefined ? undefined : privateAddressAmong(addresses)?.address
}
