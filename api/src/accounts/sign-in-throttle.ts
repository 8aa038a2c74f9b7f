import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import type { Db } from '../platform/data/database.js'
import { formatTimestamp } from '../platform/data/time.js'

/**
 * Failed sign-ins, counted in the database so that every api process (and so every BFF) counts the same ones: per
 * account and per address, in fixed windows. A key over its limit is refused until its window ends, whether or not
 * an account exists behind it, so the answer never tells.
 */
export interface ThrottleLimits {
  /** Failures one account may take in a window before it is locked until the window ends. */
  perAccount: number
  /** Failures one address may cause in a window, over any accounts. */
  perAddress: number
  windowSeconds: number
}

export const SIGN_IN_LIMITS: ThrottleLimits = { perAccount: 10, perAddress: 50, windowSeconds: 15 * 60 }

export interface ThrottleKeys {
  account: string
  address: string
}

/** The keys of one attempt: the account's by a hash of its address (a fixed length), the caller's address. */
export function throttleKeys(emailLower: string, address: string): ThrottleKeys {
  return { account: `account:${createHash('sha256').update(emailLower).digest('hex')}`, ...addressKey(address) }
}

/** The key of the caller's address alone, for an attempt that names no account. */
export function addressKey(address: string): Pick<ThrottleKeys, 'address'> {
  return { address: `address:${address.slice(0, 100)}` }
}

/** Seconds until an attempt may be made with these keys (an address's alone, or with an account's); 0 when it may now. */
export async function throttleWait(
  db: Db,
  keys: ThrottleKeys | Pick<ThrottleKeys, 'address'>,
  limits: ThrottleLimits,
  now: Date,
): Promise<number> {
  const account = 'account' in keys ? keys.account : undefined
  const rows = await db
    .selectFrom('sign_in_throttle')
    .select(['key', 'failures', 'window_ends'])
    .where('key', 'in', account === undefined ? [keys.address] : [account, keys.address])
    .where('window_ends', '>', formatTimestamp(now))
    .execute()
  let wait = 0
  for (const row of rows) {
    const limit = row.key === account ? limits.perAccount : limits.perAddress
    if (row.failures >= limit) {
      wait = Math.max(wait, Math.ceil((Date.parse(row.window_ends) - now.getTime()) / 1000))
    }
  }
  return wait
}

/** Counts a failure against both keys, in one statement each that every process may run at once. */
export async function recordFailure(db: Db, keys: ThrottleKeys, limits: ThrottleLimits, now: Date): Promise<void> {
  const nowText = formatTimestamp(now)
  const windowEnds = formatTimestamp(new Date(now.getTime() + limits.windowSeconds * 1000))
  for (const key of [keys.account, keys.address]) {
    await db
      .insertInto('sign_in_throttle')
      .values({ key, failures: 1, window_ends: windowEnds })
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          failures: sql<number>`case when sign_in_throttle.window_ends <= ${nowText} then 1 else sign_in_throttle.failures + 1 end`,
          window_ends: sql<string>`case when sign_in_throttle.window_ends <= ${nowText} then ${windowEnds} else sign_in_throttle.window_ends end`,
        }),
      )
      .execute()
  }
  // Ended windows count for nothing: the table holds only the current ones.
  await db.deleteFrom('sign_in_throttle').where('window_ends', '<=', nowText).execute()
}

/** A successful sign-in clears its account's failures (not its address's: one good password proves nothing of it). */
export async function clearAccountFailures(db: Db, keys: ThrottleKeys): Promise<void> {
  await db.deleteFrom('sign_in_throttle').where('key', '=', keys.account).execute()
}
