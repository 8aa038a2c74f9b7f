import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config.js'
import { SecretBox, secretBoxFrom, SecretOpenError } from './secret-box.js'

const key = randomBytes(32)
const box = new SecretBox(key)

/** `sealed` with one byte of its part `part` (1 the IV, 2 the ciphertext and tag) flipped. */
function flipped(sealed: string, part: 1 | 2, byte: number): string {
  const parts = sealed.split(':')
  const bytes = Buffer.from(parts[part] ?? '', 'base64')
  bytes[byte] = (bytes[byte] ?? 0) ^ 0x01
  parts[part] = bytes.toString('base64')
  return parts.join(':')
}

describe('SecretBox', () => {
  it('opens what it sealed, for the same context, whatever the text', () => {
    for (const text of ['hunter2', '', 'pässwörd with spaces and ☃', 'x'.repeat(1000)]) {
      expect(box.open(box.seal(text, 'emailacct_1'), 'emailacct_1')).toBe(text)
    }
  })

  it('stores v1, a 12-byte IV and the ciphertext with its 16-byte tag, never the text; a new IV every time', () => {
    const first = box.seal('hunter2', 'ctx')
    const [version, iv, body] = first.split(':')
    expect(version).toBe('v1')
    expect(Buffer.from(iv ?? '', 'base64')).toHaveLength(12)
    expect(Buffer.from(body ?? '', 'base64')).toHaveLength('hunter2'.length + 16)
    expect(first).not.toContain('hunter2')
    expect(box.seal('hunter2', 'ctx')).not.toBe(first)
  })

  it('detects tampering with the IV, the ciphertext or the tag', () => {
    const sealed = box.seal('hunter2', 'ctx')
    expect(() => box.open(flipped(sealed, 1, 0), 'ctx')).toThrow(SecretOpenError)
    expect(() => box.open(flipped(sealed, 2, 0), 'ctx')).toThrow(SecretOpenError)
    expect(() => box.open(flipped(sealed, 2, 'hunter2'.length + 15), 'ctx')).toThrow(SecretOpenError)
    // Cut short: no room for the tag.
    expect(() => box.open(`v1:${sealed.split(':')[1] ?? ''}:AAAA`, 'ctx')).toThrow(SecretOpenError)
    // Cut short by a few bytes: the last 16 bytes are taken as the tag, so a shortened tag is never checked.
    const [, iv = '', body = ''] = sealed.split(':')
    for (const cut of [1, 4, 8]) {
      const shorter = Buffer.from(body, 'base64').subarray(0, -cut).toString('base64')
      expect(() => box.open(`v1:${iv}:${shorter}`, 'ctx')).toThrow(SecretOpenError)
    }
  })

  it('does not open under another key, nor for another context (a value copied to another row)', () => {
    const sealed = box.seal('hunter2', 'emailacct_1')
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'emailacct_1')).toThrow(SecretOpenError)
    expect(() => box.open(sealed, 'emailacct_2')).toThrow(SecretOpenError)
  })

  it('refuses what is not a v1 value', () => {
    for (const text of ['hunter2', 'v2:AAAA:AAAA', 'v1:AAAA', `v1:${'A'.repeat(16)}:${'A'.repeat(24)}:extra`]) {
      expect(() => box.open(text, 'ctx')).toThrow(SecretOpenError)
    }
  })

  it('never shows its key', () => {
    const text = JSON.stringify({ box })
    expect(text).not.toContain(key.toString('hex'))
    expect(text).not.toContain(key.toString('base64'))
  })
})

describe('LEADLINE_SECRET_KEY', () => {
  const hex = key.toString('hex')

  it('is read as 64 hex characters or as base64 (with or without padding, URL-safe too): the same key', () => {
    const sealed = box.seal('hunter2', 'ctx')
    for (const text of [hex, hex.toUpperCase(), key.toString('base64'), key.toString('base64url'), ` ${hex}\n`]) {
      expect(secretBoxFrom({ LEADLINE_SECRET_KEY: text })?.open(sealed, 'ctx')).toBe('hunter2')
    }
  })

  it('is optional: no key, no box', () => {
    expect(secretBoxFrom({})).toBeNull()
    expect(secretBoxFrom({ LEADLINE_SECRET_KEY: '' })).toBeNull()
    expect(loadConfig({}).secretBox).toBeNull()
  })

  it.each([
    ['too short', hex.slice(2)],
    ['too long', `${hex}00`],
    ['16 bytes of base64', randomBytes(16).toString('base64')],
    ['48 bytes of base64', randomBytes(48).toString('base64')],
    ['a passphrase', 'correct horse battery staple'],
  ])('refuses a key that is %s, at config load, saying what it must be', (_what, text) => {
    expect(() => loadConfig({ LEADLINE_SECRET_KEY: text })).toThrow(
      'LEADLINE_SECRET_KEY must be 32 random bytes as 64 hex characters or as base64',
    )
  })
})
