import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

// Secrets the api must use again (an SMTP server's password, signing keys: platform/security/stored-secrets.ts), stored
// encrypted under the server's LEADLINE_SECRET_KEY (docs/decisions/0029-email-accounts.md, 0040): AES-256-GCM, a random 12-byte IV per value, stored as
// `v1:<base64 iv>:<base64 ciphertext and 16-byte tag>`. The version lets a later format or key scheme sit beside it.

const VERSION = 'v1'
const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16

/** A sealed value that does not open: tampered with, sealed under another key or for another context, or malformed. */
export class SecretOpenError extends Error {
  constructor(message = 'The value does not decrypt with this key.') {
    super(message)
    this.name = 'SecretOpenError'
  }
}

/** Seals and opens values under one 32-byte key, which it never shows (not in JSON, not in logs). */
export class SecretBox {
  readonly #key: Buffer

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`A secret key has ${KEY_BYTES} bytes, not ${key.length}`)
    this.#key = Buffer.from(key)
  }

  /**
   * `plaintext` encrypted and authenticated; `context` (e.g. the id of the row it belongs to) is authenticated too,
   * so a value copied into another row does not open there.
   */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES })
    cipher.setAAD(Buffer.from(context, 'utf8'))
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
    return `${VERSION}:${iv.toString('base64')}:${sealed.toString('base64')}`
  }

  /** The plaintext `seal(plaintext, context)` made; throws SecretOpenError when it does not open. */
  open(sealed: string, context: string): string {
    const [version, ivText, bodyText, ...rest] = sealed.split(':')
    if (version !== VERSION || ivText === undefined || bodyText === undefined || rest.length > 0) {
      throw new SecretOpenError('The value is not a sealed secret this version can read.')
    }
    const iv = Buffer.from(ivText, 'base64')
    const body = Buffer.from(bodyText, 'base64')
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new SecretOpenError('The sealed value is malformed.')
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES })
    decipher.setAAD(Buffer.from(context, 'utf8'))
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES))
    try {
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      )
    } catch {
      throw new SecretOpenError()
    }
  }

  toJSON(): string {
    return '[secret key]'
  }
}

const KEY_HELP = 'must be 32 random bytes as 64 hex characters or as base64 (e.g. `openssl rand -hex 32`)'

/** `LEADLINE_SECRET_KEY` (32 bytes, hex or base64) as a SecretBox; null when unset; anything else throws. */
export function secretBoxFrom(env: Record<string, string | undefined>): SecretBox | null {
  const text = env.LEADLINE_SECRET_KEY?.trim() ?? ''
  if (text === '') return null
  let key: Buffer | undefined
  if (/^[0-9a-fA-F]{64}$/.test(text)) key = Buffer.from(text, 'hex')
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) key = Buffer.from(text, 'base64')
  if (key?.length !== KEY_BYTES) throw new Error(`LEADLINE_SECRET_KEY ${KEY_HELP}`)
  return new SecretBox(key)
}
