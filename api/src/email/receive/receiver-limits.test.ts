import { describe, expect, it } from 'vitest'
import { clientKey, OpenConnections, WindowCounter } from './receiver-limits.js'

describe('clientKey', () => {
  it('is an IPv4 address, written either way, or an IPv6 address’s /64', () => {
    expect(clientKey('192.0.2.7')).toBe('192.0.2.7')
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7')
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64')
    expect(clientKey('2001:DB8:1:2::99')).toBe('2001:db8:1:2::/64')
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(clientKey('::1')).toBe('0:0:0:0::/64')
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(clientKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64')
  })
})

describe('OpenConnections', () => {
  it('lets a key have so many open at once, and forgets a key with none open', () => {
    const open = new OpenConnections(2)
    expect([open.tryOpen('a'), open.tryOpen('a'), open.tryOpen('a'), open.tryOpen('b')]).toEqual([
      true,
      true,
      false,
      true,
    ])
    open.close('a')
    expect(open.tryOpen('a')).toBe(true)
  })
})

describe('WindowCounter', () => {
  it('counts so many events per key per window', () => {
    const counter = new WindowCounter(2, 1000, 10)
    expect([counter.take('a', 0), counter.take('a', 10), counter.take('a', 999), counter.take('b', 999)]).toEqual([
      true,
      true,
      false,
      true,
    ])
    expect(counter.take('a', 1000)).toBe(true)
  })

  it('never keeps more keys than its capacity, however many addresses come', () => {
    const counter = new WindowCounter(1, 60_000, 100)
    for (let i = 0; i < 10_000; i++) counter.take(`198.51.${String(i >> 8)}.${String(i & 255)}`, i)
    expect(counter.size).toBe(100)
    // The newest keys are the ones kept: the last address is still limited.
    expect(counter.take('198.51.39.15', 10_000)).toBe(false)
  })
})
