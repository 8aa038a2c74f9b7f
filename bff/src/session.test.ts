import { createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { cp, readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { hashId, hkdfSha256, SESSION_DB_FILE, SessionStore, unsealApiKey } from './session.js'
import { KEY, SECRET, tempDir } from './test-support/harness.js'
import { DAY_MS, profile, sessionStoreContract, t0, type StoreTerms } from './test-support/session-store-contract.js'

let dir: Awaited<ReturnType<typeof tempDir>>
const opened: SessionStore[] = []
beforeEach(async () => {
  dir = await tempDir()
})
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
  await dir.remove()
})

async function open({
  idleMinutes = 30,
  maxAgeMs = 30 * DAY_MS,
  file = join(dir.path, SESSION_DB_FILE),
  memory = false,
}: StoreTerms & { file?: string; memory?: boolean } = {}) {
  const store = await SessionStore.open({
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
  const store = await open()
  const id = await store.create(profile, KEY, t0)
  expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
  const bytes = await storedBytes(dir.path)
  expect(bytes.includes(KEY)).toBe(false)
  expect(bytes.includes(id)).toBe(false)
  expect(bytes.includes(hashId(id))).toBe(true)
  expect(storedRows(join(dir.path, SESSION_DB_FILE)).map((row) => row.id_hash)).toEqual([hashId(id)])
  const session = await store.get(id, t0)
  expect(session === undefined ? undefined : store.apiKey(id, session)).toBe(KEY)
  expect((await stat(join(dir.path, SESSION_DB_FILE))).mode & 0o777).toBe(0o600)
})

test('a copy of the data folder with the server secret, but without the cookie, yields no key', async () => {
  const store = await open({ file: join(dir.path, 'data', SESSION_DB_FILE) })
  const id = await store.create(profile, KEY, t0)
  await store.close()
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
  const copied = await open({ file: join(copy, SESSION_DB_FILE) })
  expect(await copied.count()).toBe(1)
  const session = await copied.get(id, t0)
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

test('the file is in WAL mode; a store without a file keeps sessions in its own memory', async () => {
  await open()
  const db = new Database(join(dir.path, SESSION_DB_FILE), { readonly: true })
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
  db.close()

  const memory = await open({ memory: true })
  const id = await memory.create(profile, KEY, t0)
  const session = await memory.get(id, t0)
  expect(session === undefined ? undefined : memory.apiKey(id, session)).toBe(KEY)
  expect(await (await open({ memory: true })).get(id, t0)).toBeUndefined()
})

test('a session file from a newer BFF stops the start with a clear message', async () => {
  const file = join(dir.path, SESSION_DB_FILE)
  const db = new Database(file)
  db.pragma('user_version = 7')
  db.close()
  await expect(open({ file })).rejects.toThrow(/session schema 7; this BFF knows 3/)
})

test('a session file from the previous BFF keeps its sessions and gains the failed sign-ins', async () => {
  const file = join(dir.path, SESSION_DB_FILE)
  const id = await (await open({ file })).create(profile, KEY, t0)
  for (const store of opened.splice(0)) await store.close()
  const db = new Database(file)
  db.exec('DROP TABLE sign_in_failure')
  db.pragma('user_version = 1')
  db.close()
  const store = await open({ file })
  expect((await store.get(id, t0))?.email).toBe(profile.email)
  await store.recordSignInFailure('192.0.2.1', t0.getTime(), { keep: 5, sinceMs: 0, maxRows: 10 })
  expect(await store.signInFailures('192.0.2.1', 0, 5)).toEqual([t0.getTime()])
})

test('a session file of schema 2 keeps its sessions and gains the index that ends a member’s sessions', async () => {
  const file = join(dir.path, SESSION_DB_FILE)
  const first = await open({ file })
  const kept = await first.create(profile, KEY, t0)
  const other = await first.create({ ...profile, userId: 'user_other' }, KEY, t0)
  for (const store of opened.splice(0)) await store.close()
  const db = new Database(file)
  db.exec('DROP INDEX session_member')
  db.pragma('user_version = 2')
  db.close()
  const store = await open({ file })
  expect(await store.deleteMember(profile.organizationId, profile.userId)).toBe(1)
  expect(await store.get(kept, t0)).toBeUndefined()
  expect((await store.get(other, t0))?.userId).toBe('user_other')
  const upgraded = new Database(file)
  expect(upgraded.pragma('user_version', { simple: true })).toBe(3)
  expect(upgraded.prepare("SELECT name FROM sqlite_master WHERE name = 'session_member'").get()).toBeDefined()
  upgraded.close()
})

describe('on SQLite files', () => {
  sessionStoreContract((terms) => open(terms))
})
