import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { LRUCache } from 'lru-cache'

/** What the BFF knows about a signed-in user; the API key is only ever held sealed. */
export interface SessionProfile {
  userId: string
  firstName: string
  lastName: string
  email: string
  displayName: string
  organizationId: string
  organizationName: string
  role: string
  /** IANA zone, e.g. `America/New_York`; `X-TZ-Offset` is computed from it per request. */
  timeZone: string
}

export interface Session extends SessionProfile {
  /** The SHA-256 of the cookie value, the row's key (`hashId`). */
  idHash: string
  /** `v2.<iv>.<tag>.<ciphertext>`: see `sealApiKey`. */
  sealedKey: string
  /** Epoch milliseconds of the sign-in; the absolute lifetime counts from it. */
  createdAt: number
  /** Epoch milliseconds of the last request, as last written (at most a minute behind). */
  lastSeen: number
}

export interface StoreOptions {
  /** The SQLite file every BFF process shares; undefined keeps sessions in this process's memory only. */
  file: string | undefined
  secret: Buffer
  idleMs: number
  /** A session older than this ends even if it is in use. */
  maxAgeMs: number
}

/** The session database's name in the data folder. */
export const SESSION_DB_FILE = 'sessions.db'

// A busy user does not cause a write per request: activity is written when the stored time is this old, so a
// session may end up to this much before its idle time is up.
const WRITE_LAST_SEEN_EVERY_MS = 60_000
// Another process may hold the write lock for a moment (a sign-in, a purge); wait rather than fail the request.
const BUSY_TIMEOUT_MS = 5000
const SCHEMA_VERSION = 3
/**
 * Sessions whose API key this process keeps opened (decision 0070): unsealing it (HKDF's two HMACs and AES-GCM) cost
 * about 15 µs of every proxied request.
 */
const OPENED_KEYS_KEPT = 10_000

interface SessionRow {
  id_hash: string
  user_id: string
  first_name: string
  last_name: string
  email: string
  display_name: string
  organization_id: string
  organization_name: string
  role: string
  time_zone: string
  sealed_key: string
  created_at: number
  last_seen: number
}

/**
 * Server-side sessions in one SQLite table (WAL mode), so several BFF processes on one data folder share them, and
 * beside them the failed sign-ins every process counts against (see sign-in-limiter.ts).
 * Rows are keyed by the SHA-256 of the cookie value, and the API key is sealed under a key derived from the cookie
 * value itself: neither the value nor anything that opens the key without it is ever stored.
 */
export class SessionStore {
  readonly #db: Database.Database
  readonly #secret: Buffer
  readonly #idleMs: number
  readonly #maxAgeMs: number
  readonly #statements: ReturnType<typeof prepare>
  /** By session (its id hash): the sealed key as stored, and the key it opened to. */
  readonly #opened = new LRUCache<string, { sealed: string; key: string }>({ max: OPENED_KEYS_KEPT })

  private constructor(db: Database.Database, options: StoreOptions) {
    this.#db = db
    this.#secret = options.secret
    this.#idleMs = options.idleMs
    this.#maxAgeMs = options.maxAgeMs
    this.#statements = prepare(db)
  }

  static open(options: StoreOptions): SessionStore {
    return new SessionStore(openDatabase(options.file), options)
  }

  get size(): number {
    const row = this.#statements.count.get()
    return typeof row === 'object' && row !== null && 'n' in row && typeof row.n === 'number' ? row.n : 0
  }

  /** Creates a session and returns the cookie value (32 random bytes, base64url). */
  create(profile: SessionProfile, apiKey: string, now: Date): string {
    this.#purge(now.getTime())
    const id = randomBytes(32).toString('base64url')
    const hash = hashId(id)
    this.#statements.insert.run({
      id_hash: hash,
      user_id: profile.userId,
      first_name: profile.firstName,
      last_name: profile.lastName,
      email: profile.email,
      display_name: profile.displayName,
      organization_id: profile.organizationId,
      organization_name: profile.organizationName,
      role: profile.role,
      time_zone: profile.timeZone,
      sealed_key: sealApiKey(apiKey, id, this.#secret, hash),
      created_at: now.getTime(),
      last_seen: now.getTime(),
    } satisfies SessionRow)
    return id
  }

  /** The live session for a cookie value, its idle clock restarted; an expired one is deleted. */
  get(id: string, now: Date): Session | undefined {
    const hash = hashId(id)
    const row = this.#statements.select.get(hash)
    if (!isSessionRow(row)) return undefined
    const nowMs = now.getTime()
    if (this.#expired(row, nowMs)) {
      this.#statements.delete.run(hash)
      return undefined
    }
    if (nowMs - row.last_seen >= WRITE_LAST_SEEN_EVERY_MS) {
      this.#statements.touch.run({ id_hash: hash, last_seen: nowMs })
      row.last_seen = nowMs
    }
    return fromRow(row)
  }

  /** The live session for a cookie value, without counting this as activity (an open event stream is not). */
  peek(id: string, now: Date): Session | undefined {
    const row = this.#statements.select.get(hashId(id))
    return isSessionRow(row) && !this.#expired(row, now.getTime()) ? fromRow(row) : undefined
  }

  /**
   * The session's API key in clear, or undefined when it cannot be unsealed (e.g. the secret changed). Kept opened for
   * the session while its row holds the same sealed key, and given only for the cookie whose hash the row is under.
   */
  apiKey(id: string, session: Session): string | undefined {
    if (hashId(id) !== session.idHash) return undefined
    const opened = this.#opened.get(session.idHash)
    if (opened !== undefined && opened.sealed === session.sealedKey) return opened.key
    const key = unsealApiKey(session.sealedKey, id, this.#secret, session.idHash)
    if (key === undefined) this.#opened.delete(session.idHash)
    else this.#opened.set(session.idHash, { sealed: session.sealedKey, key })
    return key
  }

  setTimeZone(id: string, timeZone: string): void {
    this.#statements.setTimeZone.run({ id_hash: hashId(id), time_zone: timeZone })
  }

  /** Who the session's person is now (their name, role, organization's name, zone), as the api last said. */
  updateProfile(id: string, profile: SessionProfile): void {
    this.#statements.updateProfile.run({
      id_hash: hashId(id),
      first_name: profile.firstName,
      last_name: profile.lastName,
      email: profile.email,
      display_name: profile.displayName,
      organization_name: profile.organizationName,
      role: profile.role,
      time_zone: profile.timeZone,
    })
  }

  delete(id: string): void {
    const hash = hashId(id)
    this.#statements.delete.run(hash)
    this.#opened.delete(hash)
  }

  /** Gives every session of one member of an organization their new role (an admin changed it). */
  setMemberRole(organizationId: string, userId: string, role: string): void {
    this.#statements.setMemberRole.run({ organization_id: organizationId, user_id: userId, role })
  }

  /** Ends every session of one member of an organization (they were deactivated); answers how many there were. */
  deleteMember(organizationId: string, userId: string): number {
    return this.#statements.deleteMember.run({ organization_id: organizationId, user_id: userId }).changes
  }

  /** Removes idle and too-old sessions; the app calls it on a timer. */
  purgeExpired(now: Date): void {
    this.#purge(now.getTime())
  }

  /** The times (epoch ms) of an address's failed sign-ins after `sinceMs`, newest first, at most `limit` of them. */
  signInFailures(address: string, sinceMs: number, limit: number): number[] {
    return this.#statements.failures
      .all({ address, since: sinceMs, limit })
      .flatMap((row) =>
        typeof row === 'object' && row !== null && 'failed_at' in row && typeof row.failed_at === 'number'
          ? [row.failed_at]
          : [],
      )
  }

  /**
   * Records a failed sign-in. The address keeps only its newest `keep` failures, failures at or before `sinceMs` are
   * forgotten, and past `maxRows` in all the oldest go first, so a spray from many addresses cannot grow the file.
   * Each step is an index lookup: a failed sign-in costs the same however many are on record.
   */
  recordSignInFailure(address: string, atMs: number, bounds: { keep: number; sinceMs: number; maxRows: number }): void {
    this.#db
      .transaction(() => {
        this.#statements.insertFailure.run({ address, failed_at: atMs })
        this.#statements.trimAddress.run({ address, keep: bounds.keep })
        this.#statements.purgeFailures.run(bounds.sinceMs)
        this.#statements.trimAll.run(bounds.maxRows)
      })
      .immediate()
  }

  /** Forgets failed sign-ins at or before `sinceMs`; the app calls it on a timer. */
  purgeSignInFailures(sinceMs: number): void {
    this.#statements.purgeFailures.run(sinceMs)
  }

  /** How many addresses have failures on record. */
  get signInFailureAddresses(): number {
    const row = this.#statements.failureAddresses.get()
    return typeof row === 'object' && row !== null && 'n' in row && typeof row.n === 'number' ? row.n : 0
  }

  /** Whether `sessions.db` answers a query (for `/readyz`). */
  reachable(): boolean {
    try {
      this.#statements.ping.get()
      return true
    } catch {
      return false
    }
  }

  close(): void {
    if (this.#db.open) this.#db.close()
  }

  #expired(row: SessionRow, nowMs: number): boolean {
    return nowMs - row.last_seen > this.#idleMs || nowMs - row.created_at > this.#maxAgeMs
  }

  #purge(nowMs: number): void {
    this.#statements.purge.run({ idle_before: nowMs - this.#idleMs, created_before: nowMs - this.#maxAgeMs })
  }
}

function openDatabase(file: string | undefined): Database.Database {
  if (file !== undefined) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
    // Created 0600 before SQLite opens it; SQLite gives its -wal and -shm files the same permissions.
    closeSync(openSync(file, 'a', 0o600))
  }
  const db = new Database(file ?? ':memory:')
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    if (file !== undefined) {
      db.pragma('journal_mode = WAL')
      // A sign-out lost to a power cut would bring the session back; a sync per commit is cheap at this rate.
      db.pragma('synchronous = FULL')
    }
    db.transaction(() => {
      const version = db.pragma('user_version', { simple: true })
      if (version === SCHEMA_VERSION) return
      if (version !== 0 && version !== 1 && version !== 2)
        throw new Error(
          `${file ?? 'the session store'} has session schema ${String(version)}; this BFF knows ${SCHEMA_VERSION}`,
        )
      db.exec(`
        CREATE TABLE IF NOT EXISTS session (
          id_hash TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          first_name TEXT NOT NULL,
          last_name TEXT NOT NULL,
          email TEXT NOT NULL,
          display_name TEXT NOT NULL,
          organization_id TEXT NOT NULL,
          organization_name TEXT NOT NULL,
          role TEXT NOT NULL,
          time_zone TEXT NOT NULL,
          sealed_key TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          last_seen INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS session_last_seen ON session (last_seen);
        CREATE INDEX IF NOT EXISTS session_created_at ON session (created_at);
        CREATE INDEX IF NOT EXISTS session_member ON session (organization_id, user_id);
        CREATE TABLE IF NOT EXISTS sign_in_failure (
          address TEXT NOT NULL,
          failed_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS sign_in_failure_address ON sign_in_failure (address, failed_at);
        CREATE INDEX IF NOT EXISTS sign_in_failure_failed_at ON sign_in_failure (failed_at);
      `)
      db.pragma(`user_version = ${SCHEMA_VERSION}`)
    }).immediate()
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

function prepare(db: Database.Database) {
  return {
    count: db.prepare('SELECT count(*) AS n FROM session'),
    ping: db.prepare('SELECT 1'),
    select: db.prepare('SELECT * FROM session WHERE id_hash = ?'),
    insert: db.prepare(
      `INSERT INTO session (id_hash, user_id, first_name, last_name, email, display_name, organization_id,
         organization_name, role, time_zone, sealed_key, created_at, last_seen)
       VALUES (@id_hash, @user_id, @first_name, @last_name, @email, @display_name, @organization_id,
         @organization_name, @role, @time_zone, @sealed_key, @created_at, @last_seen)`,
    ),
    touch: db.prepare('UPDATE session SET last_seen = max(last_seen, @last_seen) WHERE id_hash = @id_hash'),
    setTimeZone: db.prepare('UPDATE session SET time_zone = @time_zone WHERE id_hash = @id_hash'),
    updateProfile: db.prepare(
      `UPDATE session SET first_name = @first_name, last_name = @last_name, email = @email,
         display_name = @display_name, organization_name = @organization_name, role = @role, time_zone = @time_zone
       WHERE id_hash = @id_hash`,
    ),
    delete: db.prepare('DELETE FROM session WHERE id_hash = ?'),
    deleteMember: db.prepare('DELETE FROM session WHERE organization_id = @organization_id AND user_id = @user_id'),
    setMemberRole: db.prepare(
      'UPDATE session SET role = @role WHERE organization_id = @organization_id AND user_id = @user_id',
    ),
    purge: db.prepare('DELETE FROM session WHERE last_seen < @idle_before OR created_at < @created_before'),
    failures: db.prepare(
      `SELECT failed_at FROM sign_in_failure WHERE address = @address AND failed_at > @since
       ORDER BY failed_at DESC LIMIT @limit`,
    ),
    failureAddresses: db.prepare('SELECT count(DISTINCT address) AS n FROM sign_in_failure'),
    insertFailure: db.prepare('INSERT INTO sign_in_failure (address, failed_at) VALUES (@address, @failed_at)'),
    trimAddress: db.prepare(
      `DELETE FROM sign_in_failure WHERE address = @address AND rowid NOT IN
         (SELECT rowid FROM sign_in_failure WHERE address = @address ORDER BY failed_at DESC LIMIT @keep)`,
    ),
    purgeFailures: db.prepare('DELETE FROM sign_in_failure WHERE failed_at <= ?'),
    // Row ids grow with each insert, so this keeps the newest rows, by the index alone rather than a count.
    trimAll: db.prepare('DELETE FROM sign_in_failure WHERE rowid <= (SELECT max(rowid) FROM sign_in_failure) - ?'),
  }
}

function fromRow(row: SessionRow): Session {
  return {
    idHash: row.id_hash,
    userId: row.user_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    displayName: row.display_name,
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    role: row.role,
    timeZone: row.time_zone,
    sealedKey: row.sealed_key,
    createdAt: row.created_at,
    lastSeen: row.last_seen,
  }
}

export function hashId(id: string): string {
  return createHash('sha256').update(id).digest('hex')
}

const SEAL_INFO = 'leadline-bff session api key v2'
const IV_BYTES = 12
// GCM accepts tags as short as 4 bytes unless told the length; a shortened tag is easier to forge, so only a full
// 16-byte tag opens anything.
const TAG_BYTES = 16

/**
 * The AES-256-GCM key for one session: HKDF over the cookie's 32 random bytes, with the server secret as salt.
 * The cookie value lives only in the browser, so the stored rows and the secret together still open nothing.
 */
function sessionCipherKey(id: string, secret: Buffer): Buffer {
  return hkdfSha256(Buffer.from(id, 'base64url'), secret, SEAL_INFO)
}

const FIRST_BLOCK = Buffer.from([1])

/**
 * HKDF-SHA256 (RFC 5869) for a 32-byte key, the one block its expand step makes: HMAC over the input keyed by the
 * salt, then over the info and the byte 1 keyed by that. The same bytes as `hkdfSync` (a test holds them equal), at
 * half its cost on every proxied request: hkdfSync sets up key objects for its two HMACs.
 */
export function hkdfSha256(input: Buffer, salt: Buffer, info: string): Buffer {
  const pseudorandomKey = createHmac('sha256', salt).update(input).digest()
  return createHmac('sha256', pseudorandomKey).update(info).update(FIRST_BLOCK).digest()
}

/** `v2.<iv>.<tag>.<ciphertext>` (base64url parts), bound to the session by the cookie hash as associated data. */
export function sealApiKey(apiKey: string, id: string, secret: Buffer, idHash = hashId(id)): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', sessionCipherKey(id, secret), iv, { authTagLength: TAG_BYTES })
  cipher.setAAD(Buffer.from(idHash))
  const data = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()])
  return ['v2', ...[iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url'))].join('.')
}

/** The API key, or undefined when the cookie, the secret or the sealed text is not the one it was sealed with. */
export function unsealApiKey(sealed: string, id: string, secret: Buffer, idHash = hashId(id)): string | undefined {
  const [version, iv, tag, data] = sealed.split('.')
  if (version !== 'v2' || iv === undefined || tag === undefined || data === undefined) return undefined
  const ivBytes = Buffer.from(iv, 'base64url')
  const tagBytes = Buffer.from(tag, 'base64url')
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', sessionCipherKey(id, secret), ivBytes, {
      authTagLength: TAG_BYTES,
    })
    decipher.setAAD(Buffer.from(idHash))
    decipher.setAuthTag(tagBytes)
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}

const ROW_TEXT_FIELDS = [
  'id_hash',
  'user_id',
  'first_name',
  'last_name',
  'email',
  'display_name',
  'organization_id',
  'organization_name',
  'role',
  'time_zone',
  'sealed_key',
] as const

function isSessionRow(value: unknown): value is SessionRow {
  if (typeof value !== 'object' || value === null) return false
  const record: Record<string, unknown> = { ...value }
  return (
    ROW_TEXT_FIELDS.every((field) => typeof record[field] === 'string') &&
    typeof record.created_at === 'number' &&
    typeof record.last_seen === 'number'
  )
}
