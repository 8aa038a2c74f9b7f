import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { openPostgresRows } from './session-postgres.js'
import { timedRows, type FailureBounds, type RowsObserver, type SessionRow, type SessionRows } from './session-rows.js'
import { openSqliteRows } from './session-sqlite.js'

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
  /**
   * Where every BFF process's sessions live: a SQLite file on one machine's data folder, a Postgres database
   * (`LEADLINE_BFF_SESSION_URL`) for BFF processes on several machines, or undefined for this process's memory only.
   */
  file: string | undefined
  postgresUrl?: string | undefined
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
/**
 * Sessions whose API key this process keeps opened (decision 0070): unsealing it (HKDF's two HMACs and AES-GCM) cost
 * about 15 µs of every proxied request.
 */
const OPENED_KEYS_KEPT = 10_000
/**
 * How long a session row read for a signed-in browser's read of the API may answer that browser's next reads without
 * being read again (decision 0076): the read cost the BFF a fifth of its CPU on a lead read (a round trip on
 * Postgres). Only those reads use it; the API still refuses a signed-out session's key on its own.
 */
export const ROW_REUSE_MS = 1000

/**
 * Server-side sessions in one table that every BFF process shares (a SQLite file in WAL mode on one machine, or
 * Postgres across machines), and beside them the failed sign-ins every process counts against (sign-in-limiter.ts).
 * Rows are keyed by the SHA-256 of the cookie value, and the API key is sealed under a key derived from the cookie
 * value itself: neither the value nor anything that opens the key without it is ever stored.
 */
export class SessionStore {
  #rows: SessionRows
  readonly #secret: Buffer
  readonly #idleMs: number
  readonly #maxAgeMs: number
  /** By session (its id hash): the sealed key as stored, and the key it opened to. */
  readonly #opened = new LRUCache<string, { sealed: string; key: string }>({ max: OPENED_KEYS_KEPT })
  /** By session (its id hash): its row as last read from the store, for ROW_REUSE_MS (`get` with `reuse`). */
  readonly #recent = new LRUCache<string, SessionRow>({ max: OPENED_KEYS_KEPT, ttl: ROW_REUSE_MS })

  constructor(rows: SessionRows, options: Pick<StoreOptions, 'secret' | 'idleMs' | 'maxAgeMs'>) {
    this.#rows = rows
    this.#secret = options.secret
    this.#idleMs = options.idleMs
    this.#maxAgeMs = options.maxAgeMs
  }

  /** Opens the store the options name; Postgres's tables are made on first use. */
  static async open(options: StoreOptions): Promise<SessionStore> {
    const rows =
      options.postgresUrl === undefined ? openSqliteRows(options.file) : await openPostgresRows(options.postgresUrl)
    return new SessionStore(rows, options)
  }

  /** Times every statement from now on, for `/metrics`. */
  timeStatements(observe: RowsObserver): void {
    this.#rows = timedRows(this.#rows, observe)
  }

  count(): Promise<number> {
    return this.#rows.count()
  }

  /** Creates a session and returns the cookie value (32 random bytes, base64url). */
  async create(profile: SessionProfile, apiKey: string, now: Date): Promise<string> {
    await this.#purge(now.getTime())
    const id = randomBytes(32).toString('base64url')
    const hash = hashId(id)
    await this.#rows.insert({
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
    })
    return id
  }

  /**
   * The live session for a cookie value, its idle clock restarted; an expired one is deleted. With `reuse`, a row this
   * process read less than ROW_REUSE_MS ago answers without a read: for a browser's reads of the API, whose key the
   * API itself refuses once the session ends (a sign-out elsewhere revokes it). Every other caller reads the row.
   */
  async get(id: string, now: Date, options: { reuse?: boolean } = {}): Promise<Session | undefined> {
    const hash = hashId(id)
    const nowMs = now.getTime()
    const kept = options.reuse === true ? this.#recent.get(hash) : undefined
    const row = kept !== undefined && !this.#expired(kept, nowMs) ? kept : await this.#rows.select(hash)
    if (row === undefined) {
      this.#recent.delete(hash)
      return undefined
    }
    if (this.#expired(row, nowMs)) {
      this.#recent.delete(hash)
      await this.#rows.delete(hash)
      return undefined
    }
    if (nowMs - row.last_seen >= WRITE_LAST_SEEN_EVERY_MS) {
      await this.#rows.touch(hash, nowMs)
      row.last_seen = nowMs
    }
    // Set only when read: setting it again on reuse would keep a row from ever being read again.
    if (row !== kept) this.#recent.set(hash, row)
    return fromRow(row)
  }

  /** The live session for a cookie value, without counting this as activity (an open event stream is not). */
  async peek(id: string, now: Date): Promise<Session | undefined> {
    const row = await this.#rows.select(hashId(id))
    return row !== undefined && !this.#expired(row, now.getTime()) ? fromRow(row) : undefined
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

  setTimeZone(id: string, timeZone: string): Promise<void> {
    const hash = hashId(id)
    this.#recent.delete(hash)
    return this.#rows.setTimeZone(hash, timeZone)
  }

  /** Who the session's person is now (their name, role, organization's name, zone), as the api last said. */
  updateProfile(id: string, profile: SessionProfile): Promise<void> {
    const hash = hashId(id)
    this.#recent.delete(hash)
    return this.#rows.updateProfile(hash, {
      first_name: profile.firstName,
      last_name: profile.lastName,
      email: profile.email,
      display_name: profile.displayName,
      organization_name: profile.organizationName,
      role: profile.role,
      time_zone: profile.timeZone,
    })
  }

  async delete(id: string): Promise<void> {
    const hash = hashId(id)
    this.#opened.delete(hash)
    this.#recent.delete(hash)
    await this.#rows.delete(hash)
  }

  /** Gives every session of one member of an organization their new role (an admin changed it). */
  setMemberRole(organizationId: string, userId: string, role: string): Promise<void> {
    this.#forgetMember(organizationId, userId)
    return this.#rows.setMemberRole(organizationId, userId, role)
  }

  /** Ends every session of one member of an organization (they were deactivated); answers how many there were. */
  deleteMember(organizationId: string, userId: string): Promise<number> {
    this.#forgetMember(organizationId, userId)
    return this.#rows.deleteMember(organizationId, userId)
  }

  /** Removes idle and too-old sessions; the app calls it on a timer. */
  purgeExpired(now: Date): Promise<void> {
    return this.#purge(now.getTime())
  }

  /** The times (epoch ms) of an address's failed sign-ins after `sinceMs`, newest first, at most `limit` of them. */
  signInFailures(address: string, sinceMs: number, limit: number): Promise<number[]> {
    return this.#rows.failures(address, sinceMs, limit)
  }

  /**
   * Records a failed sign-in. The address keeps only its newest `keep` failures, failures at or before `sinceMs` are
   * forgotten, and past `maxRows` in all the oldest go first, so a spray from many addresses cannot grow the table.
   * Each step is an index lookup: a failed sign-in costs the same however many are on record.
   */
  recordSignInFailure(address: string, atMs: number, bounds: FailureBounds): Promise<void> {
    return this.#rows.recordFailure(address, atMs, bounds)
  }

  /** Forgets failed sign-ins at or before `sinceMs`; the app calls it on a timer. */
  purgeSignInFailures(sinceMs: number): Promise<void> {
    return this.#rows.purgeFailures(sinceMs)
  }

  /** How many addresses have failures on record. */
  signInFailureAddresses(): Promise<number> {
    return this.#rows.failureAddresses()
  }

  /** Whether the store answers a query (for `/readyz`). */
  async reachable(): Promise<boolean> {
    try {
      await this.#rows.ping()
      return true
    } catch {
      return false
    }
  }

  close(): Promise<void> {
    return this.#rows.close()
  }

  /** Drops the rows kept of one member's sessions (a walk of at most OPENED_KEYS_KEPT rows, on a rare change). */
  #forgetMember(organizationId: string, userId: string): void {
    for (const [hash, row] of this.#recent.entries())
      if (row.organization_id === organizationId && row.user_id === userId) this.#recent.delete(hash)
  }

  #expired(row: SessionRow, nowMs: number): boolean {
    return nowMs - row.last_seen > this.#idleMs || nowMs - row.created_at > this.#maxAgeMs
  }

  #purge(nowMs: number): Promise<void> {
    return this.#rows.purge(nowMs - this.#idleMs, nowMs - this.#maxAgeMs)
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
  return hash('sha256', id, 'hex')
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
