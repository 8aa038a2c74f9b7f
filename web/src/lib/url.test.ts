import { describe, expect, it } from 'vitest'
import { linkableUrl } from './url'

describe('linkableUrl', () => {
  it('links http and https URLs', () => {
    expect(linkableUrl('https://acme.com/about')).toBe('https://acme.com/about')
    expect(linkableUrl('http://acme.com')).toBe('http://acme.com/')
    expect(linkableUrl('  HTTPS://Acme.com ')).toBe('https://acme.com/')
  })

  it('links a bare domain over https', () => {
    expect(linkableUrl('acme.com')).toBe('https://acme.com/')
    expect(linkableUrl('www.acme.co.uk/team?x=1')).toBe('https://www.acme.co.uk/team?x=1')
    expect(linkableUrl('acme.com:8080/x')).toBe('https://acme.com:8080/x')
  })

  it('never links another scheme', () => {
    expect(linkableUrl('javascript:alert(1)')).toBeUndefined()
    expect(linkableUrl('JavaScript:alert(1)')).toBeUndefined()
    expect(linkableUrl('data:text/html,<b>x</b>')).toBeUndefined()
    expect(linkableUrl('mailto:sales@acme.com')).toBeUndefined()
    expect(linkableUrl('ftp://acme.com')).toBeUndefined()
  })

  it('shows text that is not a web address as text', () => {
    expect(linkableUrl('')).toBeUndefined()
    expect(linkableUrl('tbd')).toBeUndefined()
    expect(linkableUrl('acme dot com')).toBeUndefined()
    expect(linkableUrl('/relative/path')).toBeUndefined()
    expect(linkableUrl('//evil.example')).toBeUndefined()
    expect(linkableUrl('http://')).toBeUndefined()
  })
})
