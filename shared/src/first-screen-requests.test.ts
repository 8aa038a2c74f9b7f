import { describe, expect, it } from 'vitest'
import { firstScreenRequests, withQuery } from './first-screen-requests.js'

const viewer = { userId: 'user_ann', organizationId: 'orga_1', today: '2026-12-07' }
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

  it('reads this year’s report, in the viewer’s own year, only where the address chooses nothing', () => {
    const won = '&date_won__gte=2026-01-01&date_won__lte=2026-12-31&_group_by=date_won__month&_limit=0'
    const setting = ['/api/v1/pipeline/?_limit=100', '/api/v1/user/?_limit=1000', '/api/v1/organization/orga_1/']
    expect(firstScreenRequests('/reports', none, viewer)).toEqual([
      ...setting,
      `/api/v1/opportunity/?${won.slice(1)}`,
      `/api/v1/opportunity/?status_type=won${won}`,
    ])
    // Past midnight on New Year's Eve somewhere: that viewer's year.
    expect(firstScreenRequests('/reports/', none, { ...viewer, today: '2027-01-01' })).toContain(
      '/api/v1/opportunity/?date_won__gte=2027-01-01&date_won__lte=2027-12-31&_group_by=date_won__month&_limit=0',
    )
    expect(firstScreenRequests('/reports', new URLSearchParams('by=owner'), viewer)).toEqual(setting)
    expect(firstScreenRequests('/reports', none, { ...viewer, today: 'soon' })).toEqual(setting)
  })

  it('names nothing for a screen it does not know', () => {
    for (const path of ['/reports/x', '/sign-in', '/settings/users', '/leadsx', '//leads'])
      expect(firstScreenRequests(path, none, viewer), path).toEqual([])
  })
})
