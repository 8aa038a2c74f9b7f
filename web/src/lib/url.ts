// What a URL typed into a lead or contact may link to; no React, so the rules are unit-tested.

const SCHEME = /^([a-z][a-z\d+.-]*):/i

/**
 * The address to link to for a URL as the user typed it, or undefined to show it as text: only http(s) links, so a
 * stored `javascript:` or `data:` URL never becomes clickable. A bare domain (`acme.com`, `acme.com/about`) links
 * to https; it is still shown as typed.
 */
export function linkableUrl(typed: string): string | undefined {
  const text = typed.trim()
  if (text === '' || /\s/.test(text) || text.startsWith('/')) return undefined
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase()
  // `acme.com:8080` is a host and port, not a scheme named "acme.com".
  const isHostAndPort = scheme !== undefined && /^\d/.test(text.slice(scheme.length + 1))
  const candidate = scheme === undefined || isHostAndPort ? `https://${text}` : text
  let url: URL
  try {
    url = new URL(candidate)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  // A bare word ("tbd") is not a domain.
  if (candidate !== text && !url.hostname.includes('.')) return undefined
  return url.href
}
