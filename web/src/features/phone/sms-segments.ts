// How many SMS segments a text takes, as carriers count them; no React, so the rules are unit-tested.

// The GSM 03.38 alphabet (one 7-bit unit each) and its extension table (an escape and a unit: two each).
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
)
const GSM_EXTENDED = new Set('^{}\\[~]|€\f')

export interface SmsLength {
  /** What the text is sent as: GSM-7 when every character is in the GSM alphabet, else UCS-2 (Unicode). */
  encoding: 'GSM-7' | 'UCS-2'
  /** Characters as a person counts them (an emoji is one). */
  characters: number
  segments: number
}

/**
 * One message holds 160 GSM-7 units or 70 UCS-2 ones; a longer text is split into parts of 153 or 67, the rest of
 * each part carrying the header that joins them again. A two-unit character (an extension, or an emoji's surrogate
 * pair) is never split across two parts.
 */
export function smsLength(text: string): SmsLength {
  const chars = Array.from(text)
  const gsm = chars.every((c) => GSM_BASIC.has(c) || GSM_EXTENDED.has(c))
  const costs = chars.map((c) => (gsm ? (GSM_EXTENDED.has(c) ? 2 : 1) : c.length))
  const total = costs.reduce((sum, cost) => sum + cost, 0)
  const single = gsm ? 160 : 70
  const part = gsm ? 153 : 67
  let segments = total === 0 ? 0 : 1
  if (total > single) {
    let used = 0
    for (const cost of costs) {
      if (used + cost > part) {
        segments += 1
        used = 0
      }
      used += cost
    }
  }
  return { encoding: gsm ? 'GSM-7' : 'UCS-2', characters: chars.length, segments }
}

/** "42 characters · 1 segment", saying when Unicode makes each segment shorter. */
export function smsLengthText(text: string): string {
  const { encoding, characters, segments } = smsLength(text)
  const plural = (n: number, word: string) => `${String(n)} ${word}${n === 1 ? '' : 's'}`
  const unicode = encoding === 'UCS-2' ? ' (Unicode: 70 characters a segment)' : ''
  return `${plural(characters, 'character')} · ${plural(segments, 'segment')}${unicode}`
}
