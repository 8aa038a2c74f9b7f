import { hash, verify } from '@node-rs/argon2'
import type { ZxcvbnFactory } from '@zxcvbn-ts/core'

export const MIN_PASSWORD_LENGTH = 12
/** Longer is refused: argon2 and the strength check both cost more with length, and no one types more. */
export const MAX_PASSWORD_LENGTH = 256
/** zxcvbn's 0–4 scale: 3 is "safely unguessable: moderate protection from offline slow-hash scenario". */
const MIN_SCORE = 3

/** argon2id with the library's defaults, OWASP's minimum (19 MiB, 2 passes, 1 lane); the PHC string holds them. */
export function hashPassword(password: string): Promise<string> {
  return hash(password)
}

// Verified against when there is no stored hash, so that an address without an account takes as long to refuse.
let decoy: Promise<string> | undefined

/** Whether `password` matches the stored hash; false when there is none, after as long as a real check takes. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (password.length === 0 || password.length > MAX_PASSWORD_LENGTH) return false
  if (stored === null) {
    decoy ??= hashPassword('a password no account has')
    await verify(await decoy, password).catch(() => false)
    return false
  }
  // argon2's own verify compares the derived keys in constant time.
  return verify(stored, password).catch(() => false)
}

/**
 * zxcvbn with its dictionaries, loaded and made when a password is first checked: the dictionaries add some 10 MB of
 * heap, which an api process that never sets a password (most of them, most of the time) need not carry.
 */
let strength: Promise<ZxcvbnFactory> | undefined

async function makeStrength(): Promise<ZxcvbnFactory> {
  const [core, common, english] = await Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
  ])
  return new core.ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
  })
}

/**
 * Why a new password is refused, or undefined when it will do: its length, then how guessable zxcvbn finds it, the
 * person's own name and address counted as known words.
 */
export async function passwordProblem(password: string, personal: readonly string[]): Promise<string | undefined> {
  if (password.length > MAX_PASSWORD_LENGTH) return `Use at most ${String(MAX_PASSWORD_LENGTH)} characters.`
  // Characters as a person counts them: an accented letter or an emoji is one.
  const characters = [...new Intl.Segmenter().segment(password)].length
  if (characters < MIN_PASSWORD_LENGTH) return `Use at least ${String(MIN_PASSWORD_LENGTH)} characters.`
  strength ??= makeStrength()
  const inputs = personal.flatMap((part) => [part, ...part.split(/[@.\s_-]/)]).filter((part) => part.length >= 3)
  const result = (await strength).check(password, inputs)
  if (result.score >= MIN_SCORE) return undefined
  const why = [result.feedback.warning, ...result.feedback.suggestions].filter(
    (line): line is string => typeof line === 'string' && line !== '',
  )
  return ['This password is too easy to guess.', ...why].join(' ')
}
