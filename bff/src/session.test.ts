import { createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { cp, readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { hashId, hkdfSha256, SESSION_DB_FILE, SessionStore, unsealApiKey, type SessionProfile } from './session.js'
import { KEY, SECRET, tempDir } from './test-support/harness.js'

let dir: Awaited<ReturnType<typeof tempDir>>
const opened: SessionStore[] = []
beforeEach(async () => {
  dir = await tempDir()
})
afterEach(async () => {
  for (const store of opened.splice(0)) store.close()
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
const DAY_MS = 24 * 60 * 60_000

function open({
  idleMinutes = 30,
  maxAgeMs = 30 * DAY_MS,
  file = join(dir.path, SESSION_DB_FILE),
  memory = false,
}: { idleMinutes?: number; maxAgeMs?: number; file?: string; memory?: boolean } = {}) {
  const store = SessionStore.open({
    file: memory ? undefined : file,
    secret: SECRET,
    idleMs: idleMinutes * 60_000,
    maxAgeMs,
  })
  opened.push(store)
  return store
}

/** Every byte SQLite has written for the store: the database, its WAL and shared-memory files. */
async function storedBytes(folder: string): Promise<Buffer> {
  const names = (await readdir(folder)).filter((name) => name.startsWith(SESSION_DB_FILE))
  return Buffer.concat(await Promise.all(names.map((name) => readFile(join(folder, name)))))
}

function storedRows(file: string): { id_hash: string; sealed_key: string }[] {
  const db = new Database(file, { readonly: true })
  try {
    return db
      .prepare('SELECT id_hash, sealed_key FROM session')
      .all()
      .map((row) => {
        if (typeof row !== 'object' || row === null || !('id_hash' in row) || !('sealed_key' in row))
          throw new Error('unexpected row')
        return { id_hash: String(row.id_hash), sealed_key: String(row.sealed_key) }
      })
  } finally {
    db.close()
  }
}

test('the key is stored sealed, under the hash of the session id; neither the key nor the id is stored', async () => {
  const store = open()
  const id = store.create(profile, KEY, t0)
  expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
  const bytes = await storedBytes(dir.path)
  expect(bytes.includes(KEY)).toBe(false)
  expect(bytes.includes(id)).toBe(false)
  expect(bytes.includes(hashId(id))).toBe(true)
  expect(storedRows(join(dir.path, SESSION_DB_FILE)).map((row) => row.id_hash)).toEqual([hashId(id)])
  const session = store.get(id, t0)
  expect(session === undefined ? undefined : store.apiKey(id, session)).toBe(KEY)
  expect((await stat(join(dir.path, SESSION_DB_FILE))).mode & 0o777).toBe(0o600)
})

test('a copy of the data folder with the server secret, but without the cookie, yields no key', async () => {
  const store = open({ file: join(dir.path, 'data', SESSION_DB_FILE) })
  const id = store.create(profile, KEY, t0)
  store.close()
  const copy = join(dir.path, 'copy')
  await cp(join(dir.path, 'data'), copy, { recursive: true })
  const [row] = storedRows(join(copy, SESSION_DB_FILE))
  if (row === undefined) throw new Error('the copy holds no session')

  // What the old store did: a key derived from the secret alone. It opens nothing now.
  const secretOnly = Buffer.from(hkdfSync('sha256', SECRET, '', 'leadline-bff session api keys', 32))
  const [, iv = '', tag = '', data = ''] = row.sealed_key.split('.')
  expect(() => {
    const decipher = createDecipheriv('aes-256-gcm', secretOnly, Buffer.from(iv, 'base64url'))
    decipher.setAAD(Buffer.from(row.id_hash))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()])
  }).toThrow()
  // Any other cookie value, even one made to look right, does not unseal it; the real one with the secret does.
  for (let attempt = 0; attempt < 20; attempt += 1)
    expect(unsealApiKey(row.sealed_key, randomBytes(32).toString('base64url'), SECRET)).toBeUndefined()
  expect(unsealApiKey(row.sealed_key, id, Buffer.alloc(32, 9))).toBeUndefined()
  expect(unsealApiKey(row.sealed_key, id, SECRET)).toBe(KEY)

  // And through a store opened on the copy: the row is found only by the cookie's hash.
  const copied = open({ file: join(copy, SESSION_DB_FILE) })
  expect(copied.size).toBe(1)
  const session = copied.get(id, t0)
  if (session === undefined) throw new Error('session missing from the copy')
  expect(copied.apiKey(randomBytes(32).toString('base64url'), session)).toBeUndefined()
  expect(copied.apiKey(id, session)).toBe(KEY)
})

test('the session key derivation gives the bytes of HKDF-SHA256 (RFC 5869) for any input, salt and label', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 100 }),
      fc.uint8Array({ maxLength: 100 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      (input, salt, info) => {
        const expected = Buffer.from(hkdfSync('sha256', input, salt, info, 32))
        expect(hkdfSha256(Buffer.from(input), Buffer.from(salt), info).equals(expected)).toBe(true)
      },
    ),
  )
})

/** A store with two sessions, A holding KEY and B 'api_other', each read back. */
function twoSessions() {
  const store = open()
  const a = store.create(profile, KEY, t0)
  const b = store.create(profile, 'api_other', t0)
  const sessionA = store.get(a, t0)
  const sessionB = store.get(b, t0)
  if (sessionA === undefined || sessionB === undefined) throw new Error('sessions missing')
  return { store, a, b, sessionA, sessionB }
}

test('a tampered sealed key, or one moved to another session, does not unseal', () => {
  const { store, a, b, sessionA, sessionB } = twoSessions()
  expect(store.apiKey(b, { ...sessionB, sealedKey: sessionA.sealedKey })).toBeUndefined()
  const flipped = sessionA.sealedKey.slice(0, -2) + (sessionA.sealedKey.endsWith('AA') ? 'BB' : 'AA')
  expect(store.apiKey(a, { ...sessionA, sealedKey: flipped })).toBeUndefined()
  expect(store.apiKey(b, sessionB)).toBe('api_other')
})

test('a key kept opened is given only for its own cookie and its own sealed key', () => {
  const { store, a, b, sessionA, sessionB } = twoSessions()
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
  store.delete(a)
  expect(store.get(a, t0)).toBeUndefined()
})

test('a sealed key whose tag is cut short does not unseal, though GCM would check the shorter tag', () => {
  const store = open()
  const id = store.create(profile, KEY, t0)
  const session = store.get(id, t0)
  if (session === undefined) throw new Error('session missing')
  const [version, iv, tag = '', data] = session.sealedKey.split('.')
  for (const bytes of [4, 8, 12, 15]) {
    const short = Buffer.from(tag, 'base64url').subarray(0, bytes).toString('base64url')
    expect(store.apiKey(id, { ...session, sealedKey: [version, iv, short, data].join('.') })).toBeUndefined()
  }
  expect(store.apiKey(id, session)).toBe(KEY)
})

test('idle sessions expire and are purged; a store opened later does not see them', () => {
  const store = open({ idleMinutes: 30 })
  const stale = store.create(profile, KEY, t0)
  const fresh = store.create(profile, KEY, minutes(20))
  store.purgeExpired(minutes(31))
  expect(store.size).toBe(1)
  expect(store.get(stale, minutes(31))).toBeUndefined()
  expect(store.get(fresh, minutes(31))).toBeDefined()
  const reopened = open({ idleMinutes: 30 })
  expect(reopened.get(fresh, minutes(70))).toBeUndefined()
  expect(reopened.size).toBe(0)
})

test('activity is written at most once a minute, and keeps the session alive in every store on the file', () => {
  const store = open({ idleMinutes: 30 })
  const other = open({ idleMinutes: 30 })
  const id = store.create(profile, KEY, t0)
  expect(store.get(id, new Date(t0.getTime() + 30_000))?.lastSeen).toBe(t0.getTime())
  expect(store.get(id, new Date(t0.getTime() + 60_000))?.lastSeen).toBe(t0.getTime() + 60_000)
  expect(store.get(id, minutes(25))?.lastSeen).toBe(minutes(25).getTime())
  expect(other.get(id, minutes(50))).toBeDefined()
  expect(other.get(id, minutes(81))).toBeUndefined()
  expect(store.get(id, minutes(81))).toBeUndefined()
})

test('a session ends at its absolute lifetime even while it is in use', () => {
  const store = open({ idleMinutes: 120, maxAgeMs: DAY_MS })
  const id = store.create(profile, KEY, t0)
  for (let hour = 1; hour <= 24; hour += 1) expect(store.get(id, minutes(hour * 60)), `hour ${hour}`).toBeDefined()
  expect(store.get(id, new Date(t0.getTime() + DAY_MS + 1))).toBeUndefined()
  expect(store.size).toBe(0)

  const purged = store.create(profile, KEY, t0)
  store.get(purged, minutes(23 * 60))
  store.purgeExpired(new Date(t0.getTime() + DAY_MS + 1))
  expect(store.size).toBe(0)
})

test('stores on one file share sign-ins, sign-outs and time-zone changes', () => {
  const a = open()
  const b = open()
  const id = a.create(profile, KEY, t0)
  const seen = b.get(id, t0)
  expect(seen?.email).toBe('ann@example.com')
  expect(seen === undefined ? undefined : b.apiKey(id, seen)).toBe(KEY)
  a.setTimeZone(id, 'Asia/Tokyo')
  expect(b.get(id, t0)?.timeZone).toBe('Asia/Tokyo')
  b.delete(id)
  expect(a.get(id, t0)).toBeUndefined()
})

test('the file is in WAL mode; a store without a file keeps sessions in its own memory', () => {
  open()
  const db = new Database(join(dir.path, SESSION_DB_FILE), { readonly: true })
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
  db.close()

  const memory = open({ memory: true })
  const id = memory.create(profile, KEY, t0)
  const session = memory.get(id, t0)
  expect(session === undefined ? undefined : memory.apiKey(id, session)).toBe(KEY)
  expect(open({ memory: true }).get(id, t0)).toBeUndefined()
})

test('a session file from a newer BFF stops the start with a clear message', () => {
  const file = join(dir.path, SESSION_DB_FILE)
  const db = new Database(file)
  db.pragma('user_version = 7')
  db.close()
  expect(() => open({ file })).toThrow(/session schema 7; this BFF knows 3/)
})

test('a session file from the previous BFF keeps its sessions and gains the failed sign-ins', () => {
  const file = join(dir.path, SESSION_DB_FILE)
  const id = open({ file }).create(profile, KEY, t0)
  for (const store of opened.splice(0)) store.close()
  const db = new Database(file)
  db.exec('DROP TABLE sign_in_failure')
  db.pragma('user_version = 1')
  db.close()
  const store = open({ file })
  expect(store.get(id, t0)?.email).toBe(profile.email)
  store.recordSignInFailure('192.0.2.1', t0.getTime(), { keep: 5, sinceMs: 0, maxRows: 10 })
  expect(store.signInFailures('192.0.2.1', 0, 5)).toEqual([t0.getTime()])
})

test('a session file of schema 2 keeps its sessions and gains the index that ends a member’s sessions', () => {
  const file = join(dir.path, SESSION_DB_FILE)
  const first = open({ file })
  const kept = first.create(profile, KEY, t0)
  const other = first.create({ ...profile, userId: 'user_other' }, KEY, t0)
  for (const store of opened.splice(0)) store.close()
  const db = new Database(file)
  db.exec('DROP INDEX session_member')
  db.pragma('user_version = 2')
  db.close()
  const store = open({ file })
  expect(store.deleteMember(profile.organizationId, profile.userId)).toBe(1)
  expect(store.get(kept, t0)).toBeUndefined()
  expect(store.get(other, t0)?.userId).toBe('user_other')
  const upgraded = new Database(file)
  expect(upgraded.pragma('user_version', { simple: true })).toBe(3)
  expect(upgraded.prepare("SELECT name FROM sqlite_master WHERE name = 'session_member'").get()).toBeDefined()
  upgraded.close()
})
