import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'

/** What the BFF knows about a signed-in user; the API key is only ever held encrypted. */
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
  /** `v1.<iv>.<tag>.<ciphertext>`, AES-256-GCM, bound to the session by its id hash. */
  encryptedKey: string
  /** Epoch milliseconds of the last request. */
  lastSeen: number
}

interface StoreOptions {
  /** The JSON file; undefined keeps sessions in memory only. */
  file: string | undefined
  secret: Buffer
  idleMs: number
}

const FILE_VERSION = 1
// Sliding expiry is exact in memory; the file only learns of activity this often, so a busy user does not cause
// a write per request. After a restart a session may therefore end up to this much earlier.
const PERSIST_LAST_SEEN_EVERY_MS = 60_000

/**
 * Server-side sessions, keyed by the SHA-256 of the cookie value (the value itself is never stored).
 * File-backed: loaded at open, every change rewritten atomically (temp file + fsync + rename).
 */
export class SessionStore {
  readonly #sessions = new Map<string, Session>()
  readonly #persistedLastSeen = new Map<string, number>()
  readonly #file: string | undefined
  readonly #cipherKey: Buffer
  readonly #idleMs: number
  #writing: Promise<void> | undefined
  #dirty = false

  private constructor(options: StoreOptions) {
    this.#file = options.file
    this.#idleMs = options.idleMs
    this.#cipherKey = Buffer.from(hkdfSync('sha256', options.secret, '', 'leadline-bff session api keys', 32))
  }

  static async open(options: StoreOptions, now: Date = new Date()): Promise<SessionStore> {
    const store = new SessionStore(options)
    if (options.file !== undefined) await store.#load(options.file, now.getTime())
    return store
  }

  get size(): number {
    return this.#sessions.size
  }

  /** Creates a session and returns the cookie value (32 random bytes, base64url). */
  async create(profile: SessionProfile, apiKey: string, now: Date): Promise<string> {
    this.#purge(now.getTime())
    const id = randomBytes(32).toString('base64url')
    const hash = hashId(id)
    this.#sessions.set(hash, { ...profile, encryptedKey: this.#encrypt(apiKey, hash), lastSeen: now.getTime() })
    await this.#persist()
    return id
  }

  /** The live session for a cookie value, its idle clock restarted; an expired one is deleted. */
  async get(id: string, now: Date): Promise<Session | undefined> {
    const hash = hashId(id)
    const session = this.#sessions.get(hash)
    if (session === undefined) return undefined
    if (now.getTime() - session.lastSeen > this.#idleMs) {
      this.#sessions.delete(hash)
      await this.#persist()
      return undefined
    }
    session.lastSeen = Math.max(session.lastSeen, now.getTime())
    if (session.lastSeen - (this.#persistedLastSeen.get(hash) ?? 0) >= PERSIST_LAST_SEEN_EVERY_MS) await this.#persist()
    return session
  }

  /** The session's API key in clear, or undefined when it cannot be decrypted (e.g. the secret changed). */
  apiKey(id: string, session: Session): string | undefined {
    return this.#decrypt(session.encryptedKey, hashId(id))
  }

  async setTimeZone(id: string, timeZone: string): Promise<void> {
    const session = this.#sessions.get(hashId(id))
    if (session === undefined) return
    session.timeZone = timeZone
    await this.#persist()
  }

  async delete(id: string): Promise<void> {
    if (this.#sessions.delete(hashId(id))) await this.#persist()
  }

  /** Removes idle sessions; the app calls it on a timer. */
  async purgeExpired(now: Date): Promise<void> {
    if (this.#purge(now.getTime())) await this.#persist()
  }

  /** Waits for pending writes. */
  async flush(): Promise<void> {
    await this.#writing
  }

  #purge(nowMs: number): boolean {
    let removed = false
    for (const [hash, session] of this.#sessions) {
      if (nowMs - session.lastSeen > this.#idleMs) {
        this.#sessions.delete(hash)
        removed = true
      }
    }
    return removed
  }

  #encrypt(plain: string, hash: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.#cipherKey, iv)
    cipher.setAAD(Buffer.from(hash))
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return ['v1', iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.')
  }

  #decrypt(sealed: string, hash: string): string | undefined {
    const [version, iv, tag, data] = sealed.split('.')
    if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) return undefined
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#cipherKey, Buffer.from(iv, 'base64url'))
      decipher.setAAD(Buffer.from(hash))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
    } catch {
      return undefined
    }
  }

  async #load(file: string, nowMs: number): Promise<void> {
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return
      throw error
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new Error(`${file} is not valid JSON; delete it to sign everyone out and start afresh`)
    }
    if (!isRecord(parsed) || parsed.version !== FILE_VERSION || !isRecord(parsed.sessions))
      throw new Error(`${file} is not a Leadline session file (version ${FILE_VERSION}); delete it to start afresh`)
    for (const [hash, value] of Object.entries(parsed.sessions)) {
      if (/^[0-9a-f]{64}$/.test(hash) && isSession(value) && nowMs - value.lastSeen <= this.#idleMs) {
        this.#sessions.set(hash, value)
        this.#persistedLastSeen.set(hash, value.lastSeen)
      }
    }
  }

  #persist(): Promise<void> {
    if (this.#file === undefined) return Promise.resolve()
    const file = this.#file
    this.#dirty = true
    this.#writing ??= this.#writeWhileDirty(file).finally(() => {
      this.#writing = undefined
    })
    return this.#writing
  }

  async #writeWhileDirty(file: string): Promise<void> {
    while (this.#dirty) {
      this.#dirty = false
      const sessions: Record<string, Session> = {}
      for (const [hash, session] of this.#sessions) sessions[hash] = { ...session }
      await writeAtomically(file, `${JSON.stringify({ version: FILE_VERSION, sessions })}\n`)
      this.#persistedLastSeen.clear()
      for (const [hash, session] of Object.entries(sessions)) this.#persistedLastSeen.set(hash, session.lastSeen)
    }
  }
}

export function hashId(id: string): string {
  return createHash('sha256').update(id).digest('hex')
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 })
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  const handle = await open(temp, 'w', 0o600)
  try {
    await handle.writeFile(text, 'utf8')
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const SESSION_STRING_FIELDS = [
  'userId',
  'firstName',
  'lastName',
  'email',
  'displayName',
  'organizationId',
  'organizationName',
  'role',
  'timeZone',
  'encryptedKey',
] as const

function isSession(value: unknown): value is Session {
  return (
    isRecord(value) &&
    SESSION_STRING_FIELDS.every((field) => typeof value[field] === 'string') &&
    typeof value.lastSeen === 'number' &&
    Number.isFinite(value.lastSeen)
  )
}
