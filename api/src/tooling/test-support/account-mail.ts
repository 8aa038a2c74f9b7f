import { accountMailHandlers } from '../../accounts/account-mail.js'
import { createDispatcher, type Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import { startSmtpSink, type ReceivedMail, type SmtpSink } from './smtp-sink.js'
import { createTestContext, type TestContext } from './test-app.js'

/** A test app whose system mailer is a real SMTP server on loopback, and a dispatcher that sends its links. */
export interface AccountMailScene {
  ctx: TestContext
  sink: SmtpSink
  dispatcher: Dispatcher
  /** Sends what is due, then answers the mails that reached `address`, in order. */
  mailsTo(address: string): Promise<ReceivedMail[]>
  /** Sends what is due, then answers the tokens of the `/path?token=` links that reached `address`, in order. */
  tokensTo(address: string, path: 'accept-invitation' | 'reset-password'): Promise<string[]>
  close(): Promise<void>
}

export async function accountMailScene(env: NodeJS.ProcessEnv = {}): Promise<AccountMailScene> {
  const sink = await startSmtpSink()
  const ctx = await createTestContext({
    env: {
      LEADLINE_SYSTEM_SMTP_URL: `smtp://127.0.0.1:${String(sink.port)}`,
      LEADLINE_APP_URL: 'https://crm.example.com',
      ...env,
    },
  })
  const { db, dialect } = ctx.database
  const dispatcher = createDispatcher({
    db,
    dialect,
    clock: ctx.clock,
    config: ctx.config,
    random: () => 0.5,
    handlers: accountMailHandlers({ db, clock: ctx.clock, config: ctx.config }),
  })
  const mailsTo = async (address: string) => {
    await dispatcher.drain()
    return sink.received.filter((mail) => mail.rcptTo.includes(address.toLowerCase()) || mail.rcptTo.includes(address))
  }
  return {
    ctx,
    sink,
    dispatcher,
    mailsTo,
    async tokensTo(address, path) {
      return (await mailsTo(address)).map((mail) => {
        const found = new RegExp(`^https://crm\\.example\\.com/${path}\\?token=([A-Za-z0-9]+)$`, 'm').exec(
          mail.parsed.text ?? '',
        )
        if (found?.[1] === undefined) throw new Error(`no ${path} link in the mail to ${address}`)
        return found[1]
      })
    },
    async close() {
      await dispatcher.stop()
      await sink.close()
      await ctx.close()
    },
  }
}
