import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config.js'
import { isPrivateAddress } from './private-address.js'
import { outboundPrivateAllowed } from '../config.js'

describe('isPrivateAddress, IPv4', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
  ])('refuses %s (%s)', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true)
  })

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '192.169.0.1',
    '11.0.0.1',
    '223.255.255.255',
    '198.20.0.1',
  ])('allows the public %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false)
  })
})

describe('isPrivateAddress, IPv6', () => {
  it.each([
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback, written out'],
    ['::', 'unspecified'],
    ['[::1]', 'loopback as a URL host writes it'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['FD00::ABCD', 'unique local, upper case'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['febf:ffff::1', 'link-local, end of range'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
    ['::FFFF:7F00:0001', 'IPv4-mapped loopback in upper-case hex'],
    ['0:0:0:0:0:ffff:10.1.2.3', 'IPv4-mapped private, written out'],
    ['::ffff:169.254.169.254', 'IPv4-mapped cloud metadata'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped cloud metadata in hex'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback in hex'],
    ['::a00:1', 'IPv4-compatible private'],
    ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the cloud metadata address'],
    ['64:ff9b::192.168.0.1', 'NAT64 of a private address'],
    ['64:ff9b:1::1', 'NAT64 for local use'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:c0a8:101::', '6to4 of a private address'],
  ])('refuses %s (%s)', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true)
  })

  it.each([
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    'fbff:ffff::1',
    'fe7f::1',
    '2001:db9::1',
  ])('allows the public %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false)
  })
})

describe('isPrivateAddress, not an address', () => {
  it.each(['localhost', 'example.com', '', '127.1', '0177.0.0.1', '2130706433', '1.2.3.256', '::gg', '[::1'])(
    'refuses %j: what cannot be classified is not reached',
    (text) => {
      expect(isPrivateAddress(text)).toBe(true)
    },
  )
})

describe('outboundPrivateAllowed', () => {
  it('is off unless LEADLINE_OUTBOUND_ALLOW_PRIVATE=1', () => {
    expect(outboundPrivateAllowed(loadConfig({}))).toBe(false)
    expect(outboundPrivateAllowed(loadConfig({ LEADLINE_OUTBOUND_ALLOW_PRIVATE: '0' }))).toBe(false)
    expect(outboundPrivateAllowed(loadConfig({ LEADLINE_OUTBOUND_ALLOW_PRIVATE: '' }))).toBe(false)
    expect(outboundPrivateAllowed(loadConfig({ LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' }))).toBe(true)
  })

  it("reads this process's environment when given no config", () => {
    const before = process.env.LEADLINE_OUTBOUND_ALLOW_PRIVATE
    try {
      process.env.LEADLINE_OUTBOUND_ALLOW_PRIVATE = '1'
      expect(outboundPrivateAllowed()).toBe(true)
      process.env.LEADLINE_OUTBOUND_ALLOW_PRIVATE = '0'
      expect(outboundPrivateAllowed()).toBe(false)
    } finally {
      if (before === undefined) delete process.env.LEADLINE_OUTBOUND_ALLOW_PRIVATE
      else process.env.LEADLINE_OUTBOUND_ALLOW_PRIVATE = before
    }
  })

  it('refuses anything else rather than guess', () => {
    expect(() => loadConfig({ LEADLINE_OUTBOUND_ALLOW_PRIVATE: 'yes' })).toThrow(
      'LEADLINE_OUTBOUND_ALLOW_PRIVATE must be 1 or 0, got "yes"',
    )
  })
})
