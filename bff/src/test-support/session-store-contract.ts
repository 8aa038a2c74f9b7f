import { randomBytes } from 'node:crypto'
import { expect, test } from 'vitest'
import { ROW_REUSE_MS, type SessionProfile, type SessionStore } from '../session.js'
import { KEY } from './harness.js'

// What a session store promises whichever database holds it: session.test.ts runs these on SQLite files, and
// session-postgres.postgres.test.ts on Postgres. `open` gives a store on one shared database each time it is called.

export interface StoreTerms {
  idleMinutes?: number
  maxAgeMs?: number
}

export const profile: SessionProfile = {
  userId: 'user_1',
  firstName: 'Ann',
  lastName: 'Veal',
  email: 'ann@example.com',
  displayName: 'Ann Veal',
  organizationId: 'orga_1',
  organizationName: 'Bluth Company',
  role: 'admin',
  timeZone: 'Europe/Paris',
}
export const t0 = new Date('2026-05-01T10:00:00Z')
export const minutes = (n: number) => new Date(t0.getTime() + n * 60_000)
export const DAY_MS = 24 * 60 * 60_000

export function sessionStoreContract(open: (terms?: StoreTerms) => Promise<SessionStore>): void {
  /** A store with two sessions, A holding KEY and B 'api_other', each read back. */
  async function twoSessions() {
    const store = await open()
    const a = await store.create(profile, KEY, t0)
    const b = await store.create(profile, 'api_other', t0)
    const sessionA = await store.get(a, t0)
    const sessionB = await store.get(b, t0)
    if (sessionA === undefined || sessionB === undefined) throw new Error('sessions missing')
    return { store, a, b, sessionA, sessionB }
  }

  test('a session is found by its cookie alone, and gives its key back', async () => {
    const store = await open()
    const id = await store.create(profile, KEY, t0)
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const session = await store.get(id, t0)
    expect(session).toMatchObject({ ...profile, createdAt: t0.getTime(), lastSeen: t0.getTime() })
    expect(session === undefined ? undefined : store.apiKey(id, session)).toBe(KEY)
    expect(await store.get(randomBytes(32).toString('base64url'), t0)).toBeUndefined()
    expect(await store.count()).toBe(1)
    expect(await store.reachable()).toBe(true)
  })

  test('a tampered sealed key, or one moved to another session, does not unseal', async () => {
    const { store, a, b, sessionA, sessionB } = await twoSessions()
    expect(store.apiKey(b, { ...sessionB, sealedKey: sessionA.sealedKey })).toBeUndefined()
    const flipped = sessionA.sealedKey.slice(0, -2) + (sessionA.sealedKey.endsWith('AA') ? 'BB' : 'AA')
    expect(store.apiKey(a, { ...sessionA, sealedKey: flipped })).toBeUndefined()
    expect(store.apiKey(b, sessionB)).toBe('api_other')
  })

  test('a key kept opened is given only for its own cookie and its own sealed key', async () => {
    const { store, a, b, sessionA, sessionB } = await twoSessions()
    // Opened once each, so both are kept.
    expect(store.apiKey(a, sessionA)).toBe(KEY)
    expect(store.apiKey(b, sessionB)).toBe('api_other')
    // Another cookie with A's row, A's cookie with B's row, a row whose sealed key changed: none gets a kept key.
    expect(store.apiKey(randomBytes(32).toString('base64url'), sessionA)).toBeUndefined()
    expect(store.apiKey(a, sessionB)).toBeUndefined()
    expect(store.apiKey(a, { ...sessionA, sealedKey: sessionB.sealedKey })).toBeUndefined()
    const flipped = sessionA.sealedKey.slice(0, -2) + (sessionA.sealedKey.endsWith('AA') ? 'BB' : 'AA')
    expect(store.apiKey(a, { ...sessionA, sealedKey: flipped })).toBeUndefined()
    // The real row still opens, and a deleted session's row is gone, so nothing asks for its key.
    expect(store.apiKey(a, sessionA)).toBe(KEY)
    await store.delete(a)
    expect(await store.get(a, t0)).toBeUndefined()
  })

  test('a sealed key whose tag is cut short does not unseal, though GCM would check the shorter tag', async () => {
    const store = await open()
    const id = await store.create(profile, KEY, t0)
    const session = await store.get(id, t0)
    if (session === undefined) throw new Error('session missing')
    const [version, iv, tag = '', data] = session.sealedKey.split('.')
    for (const bytes of [4, 8, 12, 15]) {
      const short = Buffer.from(tag, 'base64url').subarray(0, bytes).toString('base64url')
      expect(store.apiKey(id, { ...session, sealedKey: [version, iv, short, data].join('.') })).toBeUndefined()
    }
    expect(store.apiKey(id, session)).toBe(KEY)
  })

  test('idle sessions expire and are purged; a store opened later does not see them', async () => {
    const store = await open({ idleMinutes: 30 })
    const stale = await store.create(profile, KEY, t0)
    const fresh = await store.create(profile, KEY, minutes(20))
    await store.purgeExpired(minutes(31))
    expect(await store.count()).toBe(1)
    expect(await store.get(stale, minutes(31))).toBeUndefined()
    expect(await store.get(fresh, minutes(31))).toBeDefined()
    const reopened = await open({ idleMinutes: 30 })
    expect(await reopened.get(fresh, minutes(70))).toBeUndefined()
    expect(await reopened.count()).toBe(0)
  })

  test('activity is written at most once a minute, and keeps the session alive in every store', async () => {
    const store = await open({ idleMinutes: 30 })
    const other = await open({ idleMinutes: 30 })
    const id = await store.create(profile, KEY, t0)
    expect((await store.get(id, new Date(t0.getTime() + 30_000)))?.lastSeen).toBe(t0.getTime())
    expect((await store.get(id, new Date(t0.getTime() + 60_000)))?.lastSeen).toBe(t0.getTime() + 60_000)
    expect((await store.get(id, minutes(25)))?.lastSeen).toBe(minutes(25).getTime())
    // A peek is no activity.
    expect(await other.peek(id, minutes(50))).toBeDefined()
    expect((await other.get(id, minutes(50)))?.lastSeen).toBe(minutes(50).getTime())
    expect(await other.peek(id, minutes(81))).toBeUndefined()
    expect(await other.get(id, minutes(81))).toBeUndefined()
    expect(await store.get(id, minutes(81))).toBeUndefined()
  })

  test('a session ends at its absolute lifetime even while it is in use', async () => {
    const store = await open({ idleMinutes: 120, maxAgeMs: DAY_MS })
    const id = await store.create(profile, KEY, t0)
    for (let hour = 1; hour <= 24; hour += 1)
      expect(await store.get(id, minutes(hour * 60)), `hour ${String(hour)}`).toBeDefined()
    expect(await store.get(id, new Date(t0.getTime() + DAY_MS + 1))).toBeUndefined()
    expect(await store.count()).toBe(0)

    const purged = await store.create(profile, KEY, t0)
    await store.get(purged, minutes(23 * 60))
    await store.purgeExpired(new Date(t0.getTime() + DAY_MS + 1))
    expect(await store.count()).toBe(0)
  })

  test('stores on one database share sign-ins, sign-outs, zones and profiles', async () => {
    const a = await open()
    const b = await open()
    const id = await a.create(profile, KEY, t0)
    const seen = await b.get(id, t0)
    expect(seen?.email).toBe('ann@example.com')
    expect(seen === undefined ? undefined : b.apiKey(id, seen)).toBe(KEY)
    await a.setTimeZone(id, 'Asia/Tokyo')
    expect((await b.get(id, t0))?.timeZone).toBe('Asia/Tokyo')
    await a.updateProfile(id, { ...profile, firstName: 'Anne', role: 'user', organizationName: 'Bluth Co' })
    expect(await b.get(id, t0)).toMatchObject({ firstName: 'Anne', role: 'user', organizationName: 'Bluth Co' })
    await b.delete(id)
    expect(await a.get(id, t0)).toBeUndefined()
  })

  test('a row read for the API reads answers them again for ROW_REUSE_MS; every other read sees the store', async () => {
    const a = await open()
    const b = await open()
    const id = await a.create(profile, KEY, t0)
    const other = await a.create(profile, 'api_other', t0)
    expect((await a.get(id, t0, { reuse: true }))?.timeZone).toBe('Europe/Paris')
    await b.setTimeZone(id, 'Asia/Tokyo')
    // Another store's change: the row kept answers the API reads for a moment, a plain read sees the change.
    expect((await a.get(id, t0, { reuse: true }))?.timeZone).toBe('Europe/Paris')
    expect((await a.get(id, t0))?.timeZone).toBe('Asia/Tokyo')
    // A read refreshes what is kept; this store's own changes drop it at once.
    expect((await a.get(id, t0, { reuse: true }))?.timeZone).toBe('Asia/Tokyo')
    await a.updateProfile(id, { ...profile, timeZone: 'America/Denver' })
    expect((await a.get(id, t0, { reuse: true }))?.timeZone).toBe('America/Denver')
    await a.setMemberRole(profile.organizationId, profile.userId, 'user')
    expect((await a.get(id, t0, { reuse: true }))?.role).toBe('user')
    await a.delete(id)
    expect(await a.get(id, t0, { reuse: true })).toBeUndefined()
    // Ended elsewhere: kept for at most ROW_REUSE_MS (the API refuses its key meanwhile), then read again.
    expect(await a.get(other, t0, { reuse: true })).toBeDefined()
    await b.delete(other)
    expect(await a.get(other, t0, { reuse: true })).toBeDefined()
    await new Promise((resolve) => setTimeout(resolve, ROW_REUSE_MS + 50))
    expect(await a.get(other, t0, { reuse: true })).toBeUndefined()
    // A kept row past its idle time is read again, and the session ends as it would have.
    const idle = await a.create(profile, KEY, t0)
    expect(await a.get(idle, t0, { reuse: true })).toBeDefined()
    expect(await a.get(idle, minutes(31), { reuse: true })).toBeUndefined()
    expect(await b.get(idle, t0)).toBeUndefined()
  })

  test('a member’s sessions all take a new role, or all end, and no one else’s', async () => {
    const a = await open()
    const b = await open()
    const first = await a.create(profile, KEY, t0)
    const second = await b.create(profile, KEY, t0)
    const colleague = await a.create({ ...profile, userId: 'user_2' }, KEY, t0)
    const namesake = await a.create({ ...profile, organizationId: 'orga_2' }, KEY, t0)
    await b.setMemberRole(profile.organizationId, profile.userId, 'user')
    expect((await a.get(first, t0))?.role).toBe('user')
    expect((await a.get(second, t0))?.role).toBe('user')
    expect((await a.get(colleague, t0))?.role).toBe('admin')
    expect((await a.get(namesake, t0))?.role).toBe('admin')
    expect(await b.deleteMember(profile.organizationId, profile.userId)).toBe(2)
    expect(await a.get(first, t0)).toBeUndefined()
    expect(await a.get(second, t0)).toBeUndefined()
    expect(await a.get(colleague, t0)).toBeDefined()
    expect(await a.get(namesake, t0)).toBeDefined()
  })

  test('failed sign-ins: newest first, the newest few per address, the window, and a cap over all', async () => {
    const a = await open()
    const b = await open()
    const bounds = (sinceMs: number) => ({ keep: 3, sinceMs, maxRows: 4 })
    for (let n = 1; n <= 5; n += 1) await a.recordSignInFailure('192.0.2.1', n * 1000, bounds(0))
    expect(await b.signInFailures('192.0.2.1', 0, 10)).toEqual([5000, 4000, 3000])
    expect(await b.signInFailures('192.0.2.1', 3500, 10)).toEqual([5000, 4000])
    expect(await b.signInFailures('192.0.2.1', 0, 2)).toEqual([5000, 4000])
    await b.recordSignInFailure('198.51.100.7', 6000, bounds(0))
    await b.recordSignInFailure('203.0.113.9', 7000, bounds(0))
    expect(await a.signInFailureAddresses()).toBe(3)
    // Past four rows in all, the oldest went first.
    expect(await a.signInFailures('192.0.2.1', 0, 10)).toEqual([5000, 4000])
    // Failures at or before the window's start are forgotten.
    await a.recordSignInFailure('203.0.113.9', 8000, bounds(6000))
    expect(await a.signInFailures('192.0.2.1', 0, 10)).toEqual([])
    expect(await a.signInFailures('198.51.100.7', 0, 10)).toEqual([])
    await a.purgeSignInFailures(7000)
    expect(await b.signInFailures('203.0.113.9', 0, 10)).toEqual([8000])
    expect(await b.signInFailureAddresses()).toBe(1)
  })
}
