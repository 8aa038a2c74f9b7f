import { Resolver } from 'node:dns/promises'
import type { Readable } from 'node:stream'
import type { AuthenticateResult, DNSResolver } from 'mailauth'

// Whether a received message is from whom its From header says (decision 0039): SPF for the connecting address and
// MAIL FROM, DKIM signatures, and the DMARC policy of the From domain, which ties them to it (`mailauth`).

/** `pass`: the From domain vouches for the message; `fail`: it disowns it; `none`: nothing says either way. */
export type SenderCheckResult = 'pass' | 'fail' | 'none'

/** A check's verdict and why, as stored on the email. */
export interface SenderCheck {
  result: SenderCheckResult
  reason: string
}

/** The check could not finish (a DNS lookup failed or timed out): the sender should try again later. */
export class SenderCheckUnavailable extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SenderCheckUnavailable'
  }
}

/** What the SMTP session knows of the sender. */
export interface SenderSession {
  /** The connecting address. */
  ip: string
  /** The name it gave in EHLO/HELO. */
  helo: string
  /** The MAIL FROM address; empty for a bounce. */
  mailFrom: string
}

/** The system's DNS, each query tried twice, a quarter of `timeoutMs` at first (the check's deadline bounds it all). */
export function systemResolver(timeoutMs: number): DNSResolver {
  const resolver = new Resolver({ timeout: Math.max(1, Math.floor(timeoutMs / 4)), tries: 2 })
  // mailauth calls it as it would call `dns.promises.resolve` (MX answers are objects), narrower than its own type.
  return (domain, rrtype) => resolver.resolve(domain, rrtype) as Promise<string[]>
}

/** An error as the DNS module gives one for a query that timed out, which mailauth counts as a temporary error. */
function timedOut(): Error {
  return Object.assign(new Error('DNS lookups took too long'), { code: 'ETIMEOUT' })
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase()

/** One domain is the other or under it: a relaxed alignment that needs no list of public suffixes. */
function aligned(a: string, b: string): boolean {
  return a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`)
}

/**
 * The verdict of mailauth's results: DMARC's where the From domain publishes a policy; else `fail` when SPF fails (the
 * envelope sender's domain disowns the connecting server), `pass` when an aligned DKIM signature or an aligned SPF
 * pass vouches for the From domain, `none` otherwise. A temporary error anywhere that matters throws.
 */
export function senderVerdict(auth: AuthenticateResult): SenderCheck {
  const fromAddress = auth.dkim.headerFrom[0] ?? ''
  const fromDomain = domainOf(fromAddress)
  const dmarc = auth.dmarc
  const dmarcResult = dmarc === false ? 'none' : dmarc.status.result
  if (dmarcResult === 'temperror') throw new SenderCheckUnavailable(`DMARC lookup failed for ${fromDomain}`)
  if (dmarc !== false && dmarcResult === 'pass') {
    return { result: 'pass', reason: `DMARC pass: ${dmarc.domain} vouches for the message` }
  }
  if (dmarc !== false && dmarcResult === 'fail') {
    return {
      result: 'fail',
      reason: `DMARC fail: ${dmarc.domain} (policy ${dmarc.policy || 'none'}) does not vouch for the message: neither SPF nor DKIM passed for it`,
    }
  }
  const spf = auth.spf
  const spfResult = spf === false ? 'none' : spf.status.result
  if (spfResult === 'temperror') throw new SenderCheckUnavailable('SPF lookup failed')
  if (spf !== false && spfResult === 'fail') {
    return { result: 'fail', reason: `SPF fail: ${spf.domain} does not allow ${spf['client-ip']} to send its mail` }
  }
  const dkim = auth.dkim.results.find((r) => r.status.result === 'pass' && Boolean(r.status.aligned))
  if (dkim !== undefined) return { result: 'pass', reason: `DKIM pass: signed by ${dkim.signingDomain}` }
  if (spf !== false && spfResult === 'pass' && aligned(spf.domain, fromDomain)) {
    return { result: 'pass', reason: `SPF pass: ${spf.domain} allows ${spf['client-ip']} to send its mail` }
  }
  const spfSaid = spf === false ? 'no SPF result' : `SPF ${spfResult} for ${spf.domain}`
  return { result: 'none', reason: `No DMARC policy for ${fromDomain || 'the From domain'}; ${spfSaid}` }
}

/**
 * Checks a message (streamed from `message`) against what the session knows of its sender, every DNS lookup through
 * `resolver` and the whole check within `timeoutMs`: past it, or on a DNS failure that decides it, it throws
 * SenderCheckUnavailable.
 */
export async function checkSender(
  message: Readable,
  session: SenderSession,
  resolver: DNSResolver,
  timeoutMs: number,
): Promise<SenderCheck> {
  // Loaded when the first message comes in: mailauth adds some 10 MB of heap to every api process.
  const { authenticate } = await import('mailauth')
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(timedOut())
    }, timeoutMs)
  })
  // Every lookup answers by the deadline, so the checks behind it end too; the race below ends the wait regardless.
  deadline.catch(() => undefined)
  const bounded: DNSResolver = (domain, rrtype) => Promise.race([resolver(domain, rrtype), deadline])
  const checking = authenticate(message, {
    ip: session.ip,
    helo: session.helo,
    sender: session.mailFrom,
    resolver: bounded,
    mta: 'leadline',
    disableArc: true,
    disableBimi: true,
  })
  // Past the deadline nobody waits for it: how it ends then is of no interest.
  checking.catch(() => undefined)
  try {
    return senderVerdict(await Promise.race([checking, deadline]))
  } catch (error) {
    if (error instanceof SenderCheckUnavailable) throw error
    throw new SenderCheckUnavailable(error instanceof Error ? error.message : String(error))
  } finally {
    clearTimeout(timer)
    message.destroy()
  }
}
