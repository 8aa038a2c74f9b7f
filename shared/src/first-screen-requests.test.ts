import { describe, expect, it } from 'vitest'
import { firstScreenRequests, withQuery } from './first-screen-requests.js'

const viewer = { userId: 'user_ann', organizationId: 'orga_1' }
const none = new URLSearchParams()

describe('withQuery', () => {
  it('writes the parameters in their order, encoded, leaving out the undefined and the empty', () => {
    expect(withQuery('/api/v1/lead/')).toBe('/api/v1/lead/')
    expect(withQuery('/api/v1/lead/', { query: undefined, b: '', _skip: 0, _limit: 50 })).toBe(
      '/api/v1/lead/?_skip=0&_limit=50',
    )
    expect(withQuery('/a', { q: 'name:"a & b"', done: false })).toBe('/a?q=name%3A%22a+%26+b%22&done=false')
    expect(withQuery('/a', { q: undefined })).toBe('/a')
  })
})

describe('firstScreenRequests', () => {
  it('names a lead page only for a lead id of the id alphabet, with or without a trailing slash', () => {
    const reads = firstScreenRequests('/leads/lead_Ab1', none, viewer)
    expect(reads).toContain('/api/v1/lead/lead_Ab1/')
    expect(firstScreenRequests('/leads/lead_Ab1/', none, viewer)).toEqual(reads)
    for (const path of [
      '/leads/duplicates',
      '/leads/import',
      '/leads/lead_%3Cscript%3E',
      `/leads/lead_${'a'.repeat(65)}`,
    ])
      expect(firstScreenRequests(path, none, viewer), path).toEqual([])
  })

  it('reads the inbox of the person the page is for, and leaves out what a search changes', () => {
    expect(firstScreenRequests('/inbox', none, viewer)).toEqual([
      '/api/v1/task/?view=inbox&_type=all&assigned_to=user_ann&_order_by=date&_skip=0&_limit=200',
    ])
    expect(firstScreenRequests('/inbox', new URLSearchParams('user=user_bob'), viewer)).toEqual([])
    expect(firstScreenRequests('/leads', new URLSearchParams('query=acme'), viewer)).not.toContain(
      '/api/v1/lead/?_skip=0&_limit=50',
    )
    expect(firstScreenRequests('/opportunities', none, viewer)).toContain('/api/v1/organization/orga_1/')
  })

  it('reads the leads list for the app’s root, where the app goes to it', () => {
    expect(firstScreenRequests('/', none, viewer)).toEqual(firstScreenRequests('/leads', none, viewer))
  })

  it('names nothing for a screen it does not know', () => {
    for (const path of ['/reports', '/sign-in', '/settings/users', '/leadsx', '//leads'])
      expect(firstScreenRequests(path, none, viewer), path).toEqual([])
  })
})
