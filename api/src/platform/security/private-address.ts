import { BlockList, isIP } from 'node:net'

// The addresses outbound requests (webhook deliveries) must not reach: this machine, its networks, and the cloud
// metadata service. Checked on every address a name resolves to, at connect time, and on IP-literal URLs when a
// subscription is saved.

const IPV4_RANGES: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network", including the unspecified 0.0.0.0
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, including the cloud metadata service 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the broadcast 255.255.255.255
]

const IPV6_RANGES: readonly (readonly [string, number])[] = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form (each checked as IPv4 first)
  ['64:ff9b:1::', 48], // NAT64 for local use
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
]

const privateV4 = new BlockList()
for (const [network, prefix] of IPV4_RANGES) privateV4.addSubnet(network, prefix, 'ipv4')
const privateV6 = new BlockList()
for (const [network, prefix] of IPV6_RANGES) privateV6.addSubnet(network, prefix, 'ipv6')

/** The eight 16-bit groups of a valid IPv6 address (without a zone); a dotted IPv4 tail becomes the last two. */
function ipv6Groups(address: string): number[] {
  const text = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_all, a: string, b: string, c: string, d: string) => {
    const hex = (high: string, low: string) => ((Number(high) << 8) | Number(low)).toString(16)
    return `${hex(a, b)}:${hex(c, d)}`
  })
  const parse = (part: string | undefined) =>
    part === undefined || part === '' ? [] : part.split(':').map((group) => parseInt(group, 16))
  const [head, tail] = text.split('::')
  const front = parse(head)
  const back = parse(tail)
  const zeros = Array.from({ length: 8 - front.length - back.length }, () => 0)
  return [...front, ...zeros, ...back]
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.')
}

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that reach IPv4: mapped
 * (`::ffff:a.b.c.d`), translated (`::ffff:0:a.b.c.d`), compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`)
 * and 6to4 (`2002:AABB:CCDD::…`).
 */
function embeddedIpv4(groups: readonly number[]): string | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups
  if (g0 === 0x2002) return ipv4Of(g1, g2)
  const zeroTo = (end: number) => groups.slice(0, end).every((g) => g === 0)
  if (zeroTo(5) && (g5 === 0xffff || g5 === 0)) return ipv4Of(g6, g7)
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return ipv4Of(g6, g7)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Of(g6, g7)
  return undefined
}

/**
 * Whether an outbound request must not go to `ip`: loopback, unspecified, private, link-local (the cloud metadata
 * address among them), carrier-grade NAT, multicast, reserved, broadcast and documentation ranges, in IPv4 and
 * IPv6, and the IPv6 forms that carry such an IPv4 address. Anything that is not an IP address counts as private:
 * what cannot be classified is refused.
 */
export function isPrivateAddress(ip: string): boolean {
  const address = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  const family = isIP(address)
  if (family === 4) return privateV4.check(address, 'ipv4')
  if (family !== 6) return true
  const plain = address.replace(/%.*$/, '')
  const embedded = embeddedIpv4(ipv6Groups(plain.toLowerCase()))
  if (embedded !== undefined) return privateV4.check(embedded, 'ipv4')
  return privateV6.check(plain, 'ipv6')
}
