// The sign-in page's search params; no React, so the rules are unit-tested.

export interface SignInSearch {
  /** Where to go after signing in: a path of this app, with its search and hash. */
  redirect?: string | undefined
  /** `key`: the form that takes an API key instead of an email and password. */
  method?: 'key' | undefined
  /** Why a single sign-on failed, as the BFF's callback says when it sends the browser back here. */
  sso_error?: string | undefined
}

/**
 * Keeps `redirect` only if it is a path that stays on this origin. Parsing it as the browser will decides, not its
 * first characters: `/\evil.example` and `/\t/evil.example` are `//evil.example` to a browser, and a path that
 * normalizes to `//…` would leave too.
 */
export function safeRedirect(target: unknown, origin: string): string | undefined {
  if (typeof target !== 'string' || !target.startsWith('/')) return undefined
  let url: URL
  try {
    url = new URL(target, origin)
  } catch {
    return undefined
  }
  if (url.origin !== origin || url.pathname.startsWith('//')) return undefined
  return url.pathname + url.search + url.hash
}

/**
 * The key is always present: the router merges what validateSearch returns over the raw params, so a rejected
 * redirect must be overwritten with undefined, not left out.
 */
export function signInSearchOf(search: Record<string, unknown>, origin: string): SignInSearch {
  return {
    redirect: safeRedirect(search.redirect, origin),
    method: search.method === 'key' ? 'key' : undefined,
    sso_error:
      typeof search.sso_error === 'string' && search.sso_error !== '' ? search.sso_error.slice(0, 200) : undefined,
  }
}
