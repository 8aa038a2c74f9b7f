import { resolve } from 'node:path'
import { leadlineCommand, required } from './cli-command.js'
import { nonNegativeInt } from './cli-support.js'

export function mailCatcherCommand() {
  return leadlineCommand({
    name: 'mail-catcher',
    usage: '[--port N] [--host H] [--dir D]',
    summary: 'catch outgoing email in files instead of delivering it (for the demo and development)',
    options: [
      ['--port <N>', 'port to listen on (0 picks a free one); default 2525'],
      ['--host <H>', 'address to bind; default 127.0.0.1'],
      ['--dir <D>', 'where each message is written as an .eml file; default data/mail'],
    ],
    notes: `An SMTP server that takes every message, for any recipient, with or without a password, and writes it whole into
D; it prints one line per message (with --json, {"url","dir"} first and one JSON object per message). Point an
email account at it, and let the api reach it: LEADLINE_SMTP_ALLOW_HOSTS=localhost:2525. Runs until SIGTERM or
SIGINT.`,
    async run(input) {
      const givenPort = input.string('--port')
      const givenHost = input.string('--host')
      const givenDir = input.string('--dir')
      const port = givenPort === undefined ? 2525 : nonNegativeInt(givenPort, '--port', 0, 65535)
      const host = givenHost === undefined ? '127.0.0.1' : required(givenHost, '--host H')
      const dir = resolve(givenDir === undefined ? 'data/mail' : required(givenDir, '--dir D'))
      // Loaded by this command only: every other command (`serve` first) would carry mailparser's heap for nothing.
      const { startMailCatcher } = await import('../../email/send/mail-catcher.js')
      const catcher = await startMailCatcher({
        host,
        port,
        dir,
        onMail(mail) {
          const line = input.json
            ? JSON.stringify(mail)
            : `caught ${mail.subject === '' ? '(no subject)' : JSON.stringify(mail.subject)} from ${mail.from} to ${mail.to.join(', ')}: ${mail.file}`
          process.stdout.write(`${line}\n`)
        },
      })
      process.stdout.write(
        input.json ? `${JSON.stringify({ url: catcher.url, dir })}\n` : `catching mail on ${catcher.url} into ${dir}\n`,
      )
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(signal, () => {
          void catcher.close().then(() => process.exit(0))
        })
      }
      return undefined
    },
  })
}
