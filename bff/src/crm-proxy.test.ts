import { expect, test } from 'vitest'
import { basicAuthorization, HttpError, tzOffsetHeader, upstreamPath } from './crm-proxy.js'

// The app refuses absolute-form and `//` targets before routing too; this checks the proxy's own rule alone.
test.each([
  ['http://evil.example/api/v1/lead/', 400],
  ['//evil.example/api/v1/lead/', 400],
  ['api/v1/lead/', 400],
  ['/api/v1/../x', 400],
  ['/api/v1/%2e%2e/x', 400],
  ['/api/v1/lead%5c..%5cx', 400],
  ['/api/v1/lead/%zz', 400],
  ['/api/v2/x', 404],
  ['/apiv1/x', 404],
  ['/api/v1', 404],
])('refuses %s', (target, status) => {
  expect(() => upstreamPath(target)).toThrow(HttpError)
  try {
    upstreamPath(target)
  } catch (error) {
    expect(error instanceof HttpError ? error.status : undefined).toBe(status)
  }
})

test('keeps an allowed path and its query exactly', () => {
  expect(upstreamPath('/api/v1/lead/?query=a%20b&_limit=5')).toBe('/api/v1/lead/?query=a%20b&_limit=5')
  expect(upstreamPath('/api/v1/lead/lead_1/')).toBe('/api/v1/lead/lead_1/')
})

test('Basic with the key as user name and an empty password; offsets in decimal hours', () => {
  expect(basicAuthorization('k1')).toBe(`Basic ${Buffer.from('k1:').toString('base64')}`)
  expect(tzOffsetHeader('Asia/Kathmandu', new Date('2026-01-01T00:00:00Z'))).toBe('5.75')
  expect(tzOffsetHeader('UTC', new Date('2026-01-01T00:00:00Z'))).toBe('0.0')
})
