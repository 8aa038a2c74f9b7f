import { describe, expect, it } from 'vitest'
import { safeRedirect, signInSearchOf } from './sign-in-search'

const origin = 'https://crm.example.com'

describe('safeRedirect', () => {
  it('keeps a path of this app with its search and hash', () => {
    expect(safeRedirect('/leads', origin)).toBe('/leads')
    expect(safeRedirect('/leads/lead_1?tab=notes#activity', origin)).toBe('/leads/lead_1?tab=notes#activity')
    expect(safeRedirect('/leads?query=name%3A%22acme%22&page=2', origin)).toBe('/leads?query=name%3A%22acme%22&page=2')
  })

  it('refuses another origin, however it is spelled', () => {
    expect(safeRedirect('//evil.example', origin)).toBeUndefined()
    expect(safeRedirect('/\\evil.example', origin)).toBeUndefined()
    expect(safeRedirect('/\\/evil.example', origin)).toBeUndefined()
    expect(safeRedirect('/\t/evil.example', origin)).toBeUndefined()
    expect(safeRedirect('/\n/evil.example/x', origin)).toBeUndefined()
    expect(safeRedirect('https://evil.example/leads', origin)).toBeUndefined()
    expect(safeRedirect(`${origin}.evil.example/`, origin)).toBeUndefined()
  })

  it('refuses a path that normalizes to a protocol-relative URL', () => {
    expect(safeRedirect('/.//evil.example', origin)).toBeUndefined()
    expect(safeRedirect('/a/..//evil.example', origin)).toBeUndefined()
  })

  it('refuses what is not a path', () => {
    expect(safeRedirect(undefined, origin)).toBeUndefined()
    expect(safeRedirect(42, origin)).toBeUndefined()
    expect(safeRedirect('', origin)).toBeUndefined()
    expect(safeRedirect('leads', origin)).toBeUndefined()
    expect(safeRedirect('javascript:alert(1)', origin)).toBeUndefined()
    expect(safeRedirect(`${origin}/leads`, origin)).toBeUndefined()
  })
})

describe('signInSearchOf', () => {
  it('overwrites a redirect it does not trust and keeps one it does', () => {
    // toStrictEqual: the key must be there, undefined, to replace the raw param the router keeps otherwise.
    expect(signInSearchOf({ redirect: '/\\evil.example' }, origin)).toStrictEqual({
      redirect: undefined,
      method: undefined,
      sso_error: undefined,
    })
    expect(signInSearchOf({ redirect: '/leads/lead_1' }, origin)).toStrictEqual({
      redirect: '/leads/lead_1',
      method: undefined,
      sso_error: undefined,
    })
    expect(signInSearchOf({}, origin)).toStrictEqual({
      redirect: undefined,
      method: undefined,
      sso_error: undefined,
    })
  })

  it('keeps the API key form only when asked for by name', () => {
    expect(signInSearchOf({ method: 'key' }, origin).method).toBe('key')
    expect(signInSearchOf({ method: 'sso' }, origin).method).toBeUndefined()
    expect(signInSearchOf({ method: ['key'] }, origin).method).toBeUndefined()
  })
})

describe('sso_error', () => {
  it('keeps the message the BFF sent back, shortened, and drops anything that is not text', () => {
    expect(signInSearchOf({ sso_error: 'Refused.' }, origin).sso_error).toBe('Refused.')
    expect(signInSearchOf({ sso_error: 'x'.repeat(500) }, origin).sso_error).toHaveLength(200)
    expect(signInSearchOf({ sso_error: 42 }, origin).sso_error).toBeUndefined()
    expect(signInSearchOf({ sso_error: '' }, origin).sso_error).toBeUndefined()
  })
})
