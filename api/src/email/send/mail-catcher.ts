import { mkdir, rename, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { readUpTo } from '../receive/email-receiver.js'

// A mail catcher for the demo and for development (`leadline mail-catcher`): an SMTP server on this machine that
// takes every message, for any recipient, and keeps it as an `.eml` file instead of delivering it. `npm start` runs
// one for the demo organization, whose admin's email account sends through it (docs/decisions/0031).

/** The largest message kept; a larger one is refused with 552, as a real server would. */
export const CATCHER_MAX_BYTES = 25 * 1024 * 1024

/** One caught message, as the catcher reports it. */
export interface CaughtMail {
  file: string
  from: string
  to: string[]
  subject: string
}

export interface MailCatcher {
  /** `smtp://host:port`. */
  url: string
  port: number
  close(): Promise<void>
}

/** The file name of the `n`th message caught at `at`: sortable by time, unique within one catcher. */
function fileName(at: Date, n: number, pid: number): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('.', '-')
  return `${stamp}-${String(pid)}-${String(n).padStart(4, '0')}.eml`
}

/**
 * Starts a catcher on `host:port` (port 0: any free one) that writes each message whole into `dir` (made if missing;
 * written to a temporary name first, so a reader never sees half a file) and calls `onMail` with what it kept.
 */
export async function startMailCatcher(options: {
  host: string
  port: number
  dir: string
  onMail?: (mail: CaughtMail) => void
  /** The largest message kept (CATCHER_MAX_BYTES unless a test wants less). */
  maxBytes?: number
}): Promise<MailCatcher> {
  const maxBytes = options.maxBytes ?? CATCHER_MAX_BYTES
  await mkdir(options.dir, { recursive: true })
  let caught = 0
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    size: maxBytes,
    // Any user name and password: the demo's accounts and a developer's may or may not send one.
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anyone' })
    },
    onData(stream, session, callback) {
      readUpTo(stream, maxBytes)
        .then(async (raw) => {
          if (stream.sizeExceeded) {
            const refusal = `5.3.4 The message is over the limit of ${String(maxBytes)} bytes`
            callback(Object.assign(new Error(refusal), { responseCode: 552 }))
            return
          }
          caught += 1
          const file = join(options.dir, fileName(new Date(), caught, process.pid))
          await writeFile(`${file}.partial`, raw)
          await rename(`${file}.partial`, file)
          const parsed = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true })
          const mailFrom = session.envelope.mailFrom
          options.onMail?.({
            file,
            from: mailFrom === false ? '' : mailFrom.address,
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
          })
          callback()
        })
        .catch((error: unknown) => {
          callback(Object.assign(new Error('4.3.0 The message could not be kept'), { responseCode: 451, cause: error }))
        })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.server.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    url: `smtp://${host}:${String(port)}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve()
        })
      }),
  }
}
