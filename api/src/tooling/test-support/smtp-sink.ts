import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'

// A real SMTP server for tests (the smtp-server package on loopback): it takes every message, or refuses as told,
// and keeps what arrived — the envelope (MAIL FROM, RCPT TO) and the message read back with mailparser.

const tlsFile = (name: string) => readFileSync(new URL(`./tls/${name}`, import.meta.url), 'utf8')

/** The self-signed certificate (for `localhost` and 127.0.0.1) the sink presents with TLS: a client trusts it as a CA. */
export const SINK_CERT = tlsFile('self-signed-cert.pem')

export interface ReceivedMail {
  mailFrom: string
  rcptTo: string[]
  /** The message as it arrived (headers and body). */
  raw: string
  parsed: ParsedMail
  /** Whether the session was encrypted (implicit TLS or STARTTLS). */
  secure: boolean
  /** The user name it authenticated with, if any. */
  user: string | null
}

/** An answer to a message: accept it, or refuse it with an SMTP code and text. */
export type SinkAnswer = { accept: true } | { accept: false; code: number; message: string }

export interface SmtpSink {
  host: string
  port: number
  received: ReceivedMail[]
  /** How the next messages are answered (accepted by default); `index` counts from 0 again. */
  answerWith(answer: (mail: ReceivedMail, index: number) => SinkAnswer): void
  close(): Promise<void>
}

/**
 * Starts a sink on 127.0.0.1. `tls: 'implicit'` speaks TLS from the start, `'starttls'` offers STARTTLS, `'none'`
 * neither. With `users`, AUTH is required and checked against them.
 */
export async function startSmtpSink(
  options: { tls?: 'implicit' | 'starttls' | 'none'; users?: Record<string, string> } = {},
): Promise<SmtpSink> {
  const mode = options.tls ?? 'none'
  const received: ReceivedMail[] = []
  let answer: (mail: ReceivedMail, index: number) => SinkAnswer = () => ({ accept: true })
  let index = 0
  const settings: SMTPServerOptions = {
    secure: mode === 'implicit',
    ...(mode === 'none'
      ? { disabledCommands: ['STARTTLS'] }
      : { key: tlsFile('self-signed-key.pem'), cert: SINK_CERT }),
    logger: false,
    hideSTARTTLS: false,
    allowInsecureAuth: true,
    authOptional: options.users === undefined,
    onAuth(auth, _session, callback) {
      const users = options.users ?? {}
      if (auth.username !== undefined && users[auth.username] === auth.password) callback(null, { user: auth.username })
      else callback(new Error('Invalid user name or password'))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        simpleParser(raw).then(
          (parsed) => {
            const mail: ReceivedMail = {
              mailFrom: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
              rcptTo: session.envelope.rcptTo.map((r) => r.address),
              raw,
              parsed,
              secure: session.secure,
              user: typeof session.user === 'string' ? session.user : null,
            }
            const verdict = answer(mail, index++)
            if (verdict.accept) {
              received.push(mail)
              callback()
              return
            }
            callback(Object.assign(new Error(verdict.message), { responseCode: verdict.code }))
          },
          (error: unknown) => {
            callback(error instanceof Error ? error : new Error(String(error)))
          },
        )
      })
    },
  }
  const server = new SMTPServer(settings)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      resolve()
    })
  })
  const { port } = server.server.address() as AddressInfo
  return {
    host: '127.0.0.1',
    port,
    received,
    answerWith(next) {
      answer = next
      index = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve()
        })
      }),
  }
}
