import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { hashId, SessionStore, type SessionProfile } from './session.js'
import { KEY, SECRET, tempDir } from './test-support/harness.js'

let dir: Awaited<ReturnType<typeof tempDir>>
beforeEach(async () => {
  dir = await tempDir()
})
afterEach(async () => {
  await dir.remove()
})

const profile: SessionProfile = {
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
const t0 = new Date('2026-05-01T10:00:00Z')
const minutes = (n: number) => new Date(t0.getTime() + n * 60_000)

async function open(idleMinutes = 30) {
  return SessionStore.open({ file: join(dir.path, 'sessions.json'), secret: SECRET, idleMs: idleMinutes * 60_000 }, t0)
}

test('the key is stored encrypted, under the hash of the session id', async () => {
  const store = await open()
  const id = await store.create(profile, KEY, t0)
  expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
  const text = await readFile(join(dir.path, 'sessions.json'), 'utf8')
  expect(text).not.toContain(KEY)
  expect(text).not.toContain(id)
  expect(Object.keys(JSON.parse(text).sessions)).toEqual([hashId(id)])
  const session = await store.get(id, t0)
  expect(session === undefined ? undefined : store.apiKey(id, session)).toBe(KEY)
})

test('a tampered ciphertext, or one moved to another session, does not decrypt', async () => {
  const store = await open()
  const a = await store.create(profile, KEY, t0)
  const b = await store.create(profile, 'api_other', t0)
  const sessionA = await store.get(a, t0)
  const sessionB = await store.get(b, t0)
  if (sessionA === undefined || sessionB === undefined) throw new Error('sessions missing')
  expect(store.apiKey(b, { ...sessionB, encryptedKey: sessionA.encryptedKey })).toBeUndefined()
  const flipped = sessionA.encryptedKey.slice(0, -2) + (sessionA.encryptedKey.endsWith('AA') ? 'BB' : 'AA')
  expect(store.apiKey(a, { ...sessionA, encryptedKey: flipped })).toBeUndefined()
})

test('idle sessions expire and are purged from the file; reloading skips expired ones', async () => {
  const store = await open(30)
  const stale = await store.create(profile, KEY, t0)
  const fresh = await store.create(profile, KEY, minutes(20))
  await store.purgeExpired(minutes(31))
  expect(store.size).toBe(1)
  expect(await store.get(stale, minutes(31))).toBeUndefined()
  expect(await store.get(fresh, minutes(31))).toBeDefined()
  await store.flush()
  const text = await readFile(join(dir.path, 'sessions.json'), 'utf8')
  expect(Object.keys(JSON.parse(text).sessions)).toEqual([hashId(fresh)])
  const reopened = await SessionStore.open(
    { file: join(dir.path, 'sessions.json'), secret: SECRET, idleMs: 30 * 60_000 },
    minutes(70),
  )
  expect(reopened.size).toBe(0)
})

test('activity is persisted, so a restart keeps a busy session alive', async () => {
  const store = await open(30)
  const id = await store.create(profile, KEY, t0)
  await store.get(id, minutes(25))
  await store.flush()
  const reopened = await open(30)
  expect(await reopened.get(id, minutes(50))).toBeDefined()
})

test('a file that is not a session file stops the start with a clear message', async () => {
  await writeFile(join(dir.path, 'sessions.json'), '{"nope"')
  await expect(open()).rejects.toThrow(/sessions.json is not valid JSON/)
  await writeFile(join(dir.path, 'sessions.json'), '{"version":99}')
  await expect(open()).rejects.toThrow(/not a Leadline session file/)
})

test('concurrent changes all reach the file', async () => {
  const store = await open()
  const ids = await Promise.all(Array.from({ length: 20 }, () => store.create(profile, KEY, t0)))
  await store.flush()
  const text = await readFile(join(dir.path, 'sessions.json'), 'utf8')
  expect(Object.keys(JSON.parse(text).sessions).sort()).toEqual(ids.map(hashId).sort())
})
