import { SMTPServer } from 'smtp-server'

// A real SMTP server for the email journeys: it accepts every message (no TLS, no login, as a relay on the same
// machine) and keeps each one's envelope and raw text, so a journey can see what arrived and what never did.

/** A message the sink accepted. */
export interface ArrivedMail {
  from: string
  to: string[]
  raw: string
}

export interface MailSink {
  port: number
  messages: ArrivedMail[]
  close: () => Promise<void>
}

/** Starts the sink on a free port of 127.0.0.1. */
export async function startMailSink(): Promise<MailSink> {
  const messages: ArrivedMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const from = session.envelope.mailFrom
        messages.push({
          from: from === false ? '' : from.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      resolve()
    })
  })
  const address = server.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    port,
    messages,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve()
        })
      }),
  }
}

/** A header of a raw message, unfolded (`Subject`, `In-Reply-To`…); undefined when it has none. */
export function headerOf(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? ''
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ')
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
  return line?.slice(name.length + 1).trim()
}
