import { createReadStream, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DNSResolver } from 'mailauth'
import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server'
import type { EmailReceiveConfig } from '../../platform/config.js'
import type { Db } from '../../platform/data/database.js'
import { accountsForAddresses, type EmailAccount } from '../accounts/email-account-repo.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { readIncomingMessage, saveUpTo, SmtpRefusal } from './incoming-message.js'
import { storeIncomingMessage, type IncomingOutcome } from './incoming-store.js'
import { clientKey, OpenConnections, WindowCounter } from './receiver-limits.js'
import { checkSender, SenderCheckUnavailable, systemResolver } from './sender-check.js'

// The organizations' MX (decision 0032): mail for the address (or an identity) of any organization's email account
// is stored on the lead of the contact it is from. No AUTH: senders are other mail servers, and what they may do is
// hand over mail for those addresses, nothing else (it relays nothing).

/** Where the receiver writes what it did with each message. */
export interface ReceiverLog {
  info(fields: Record<string, unknown>, line: string): void
  error(fields: Record<string, unknown>, line: string): void
}

export interface EmailReceiverOptions {
  db: Db
  clock: Clock
  config: EmailReceiveConfig
  /** LEADLINE_LEAD_WEBHOOK_URL, which the events of what it stores carry (see EventContext). */
  leadWebhookEnvUrl: string | null
  host: string
  /** Overrides `config.port` (0: any free port, for tests). */
  port?: number
  log: ReceiverLog
  /** Answers the sender checks' DNS queries (tests); the system's DNS otherwise. */
  resolver?: DNSResolver
  /** Where each message is written while it is read (a directory of its own in it); the system's temporary one. */
  spoolDir?: string
}

export interface EmailReceiver {
  /** The port it listens on. */
  port: number
  /** Stops accepting connections and waits (10 s at most) for those open to end. */
  close(): Promise<void>
}

/** How long closing waits for a sender still talking before hanging up on it (the sender retries later). */
const CLOSE_GRACE_MS = 10_000

/** Addresses whose message counts are kept at once (decision 0039); past it the oldest count goes. */
const RATE_ADDRESSES = 10_000

/** A message's bytes, up to `limit`: past it the rest is read and dropped (and `sizeExceeded` says so). */
export async function readUpTo(stream: SMTPServerDataStream, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let length = 0
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    if (length + bytes.length <= limit) chunks.push(bytes)
    length += bytes.length
  }
  return Buffer.concat(chunks)
}

/** The accounts of the recipients, in the order the sender named them (an address may be several organizations'). */
async function recipientAccounts(db: Db, session: SMTPServerSession): Promise<EmailAccount[]> {
  const accounts: EmailAccount[] = []
  for (const recipient of session.envelope.rcptTo) {
    for (const account of await accountsForAddresses(db, null, [recipient.address])) {
      if (!accounts.some((a) => a.id === account.id)) accounts.push(account)
    }
  }
  return accounts
}

/** Starts the SMTP receiver on `host` and its port; resolves once it listens. */
export async function startEmailReceiver(options: EmailReceiverOptions): Promise<EmailReceiver> {
  const { db, clock, config, log } = options
  const tls =
    config.tls === null ? {} : { key: readFileSync(config.tls.keyFile), cert: readFileSync(config.tls.certFile) }

  const resolver = options.resolver ?? systemResolver(config.senderCheckSeconds * 1000)
  const spoolRoot = options.spoolDir ?? tmpdir()
  const receiveSpooled = async (
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
    spool: string,
  ): Promise<IncomingOutcome[]> => {
    const file = join(spool, 'message.eml')
    await saveUpTo(stream, file, config.maxMessageBytes)
    if (stream.sizeExceeded) {
      throw new SmtpRefusal(552, `5.3.4 The message is over the limit of ${String(config.maxMessageBytes)} bytes`)
    }
    const now = clock.now()
    const message = await readIncomingMessage(file, config, now, spool)
    const mailFrom = session.envelope.mailFrom
    const senderCheck = await checkSender(
      createReadStream(file),
      {
        ip: session.remoteAddress,
        helo: session.hostNameAppearsAs,
        mailFrom: mailFrom === false ? '' : mailFrom.address,
      },
      resolver,
      config.senderCheckSeconds * 1000,
    )
    const accounts = await recipientAccounts(db, session)
    const outcomes = await storeIncomingMessage(db, message, accounts, {
      now: formatTimestamp(now),
      leadWebhookEnvUrl: options.leadWebhookEnvUrl,
      senderCheck,
    })
    for (const outcome of outcomes) {
      log.info(
        {
          organization_id: outcome.organizationId,
          message_id: message.messageId,
          from: message.fromAddress,
          sender_check: senderCheck,
          ...outcome,
        },
        'stored' in outcome ? 'incoming email stored' : `incoming email accepted, not stored (${outcome.skipped})`,
      )
    }
    return outcomes
  }
  // The message goes to a file of its own as it arrives, and is parsed from there: the api never holds it whole.
  const receive = async (stream: SMTPServerDataStream, session: SMTPServerSession): Promise<IncomingOutcome[]> => {
    const spool = await mkdtemp(join(spoolRoot, 'leadline-mail-'))
    try {
      return await receiveSpooled(stream, session, spool)
    } finally {
      await rm(spool, { recursive: true, force: true })
    }
  }

  // Open connections per address (bounded by maxClients), and messages per address per window.
  const openConnections = new OpenConnections(config.maxClientsPerAddress)
  const countedSessions = new Map<string, string>()
  const messages = new WindowCounter(config.rateMessages, config.rateWindowSeconds * 1000, RATE_ADDRESSES)

  // Loaded only where mail is received (smtp-server brings much of nodemailer with it).
  const { SMTPServer } = await import('smtp-server')
  const server = new SMTPServer({
    banner: 'Leadline',
    // Mail servers hand mail over unauthenticated; STARTTLS only with the operator's certificate (smtp-server would
    // otherwise offer it with a self-signed one of its own).
    disabledCommands: config.tls === null ? ['AUTH', 'STARTTLS'] : ['AUTH'],
    authOptional: true,
    size: config.maxMessageBytes,
    closeTimeout: CLOSE_GRACE_MS,
    logger: false,
    maxClients: config.maxClients,
    // A PTR name is the sender's to choose, and nothing here reads it: no lookup per connection.
    disableReverseLookup: true,
    ...tls,
    onConnect(session, callback) {
      const key = clientKey(session.remoteAddress)
      if (!openConnections.tryOpen(key)) {
        log.info({ remote: key }, 'incoming email: too many connections from one address')
        callback(new SmtpRefusal(421, '4.7.0 Too many connections from your address, try again later'))
        return
      }
      countedSessions.set(session.id, key)
      callback()
    },
    onClose(session) {
      const key = countedSessions.get(session.id)
      if (key === undefined) return
      countedSessions.delete(session.id)
      openConnections.close(key)
    },
    onMailFrom(_address, session, callback) {
      const key = clientKey(session.remoteAddress)
      if (messages.take(key, clock.now().getTime())) {
        callback()
        return
      }
      log.info({ remote: key }, 'incoming email: too many messages from one address')
      callback(new SmtpRefusal(451, '4.7.1 Too many messages from your address, try again later'))
    },
    onRcptTo(address, _session, callback) {
      accountsForAddresses(db, null, [address.address]).then(
        (accounts) => {
          callback(accounts.length > 0 ? null : new SmtpRefusal(550, '5.1.1 No such mailbox here'))
        },
        (error: unknown) => {
          log.error({ err: error }, 'incoming email: looking up a recipient failed')
          callback(new SmtpRefusal(451, '4.3.0 Temporary failure, try again later'))
        },
      )
    },
    onData(stream, session, callback) {
      receive(stream, session).then(
        () => {
          callback()
        },
        (error: unknown) => {
          if (error instanceof SmtpRefusal) {
            log.info({ code: error.responseCode, reason: error.message }, 'incoming email refused')
            callback(error)
            return
          }
          if (error instanceof SenderCheckUnavailable) {
            // RFC 7208 and 7489: a check that could not finish is a temporary error; the sender tries again later.
            log.info({ reason: error.message }, 'incoming email: the sender could not be checked')
            callback(new SmtpRefusal(451, '4.4.3 The sender could not be checked, try again later'))
            return
          }
          // Nothing was stored (one transaction): the sending server keeps the message and tries again.
          log.error({ err: error }, 'incoming email: storing failed')
          callback(new SmtpRefusal(451, '4.3.0 Temporary failure, try again later'))
        },
      )
    },
  })

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject)
    server.listen(options.port ?? config.port ?? 0, options.host, () => {
      server.server.off('error', reject)
      resolve()
    })
  })
  server.on('error', (error) => {
    log.error({ err: error }, 'incoming email: connection error')
  })
  const port = (server.server.address() as AddressInfo).port
  let closing: Promise<void> | undefined
  return {
    port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          resolve()
        })
      })
      return closing
    },
  }
}
