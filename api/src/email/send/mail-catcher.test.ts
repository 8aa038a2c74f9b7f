import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import nodemailer, { type SendMailOptions } from 'nodemailer'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cliPath } from '../../tooling/test-support/api-process.js'
import { startMailCatcher, type CaughtMail } from './mail-catcher.js'

// The mail catcher the demo sends through: a real SMTP server written to by nodemailer, as the api's sender would.

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leadline-catcher-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function send(port: number, message: SendMailOptions, auth?: { user: string; pass: string }) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ...(auth ? { auth } : {}) })
  return transport.sendMail(message).finally(() => {
    transport.close()
  })
}

describe('startMailCatcher', () => {
  it('keeps each message whole as an .eml file, for any recipient, with or without a password', async () => {
    const caught: CaughtMail[] = []
    const catcher = await startMailCatcher({ host: '127.0.0.1', port: 0, dir, onMail: (mail) => caught.push(mail) })
    try {
      await send(catcher.port, {
        from: 'ada@demo.example',
        to: 'Tess <tess@client.example>',
        cc: 'boss@client.example',
        subject: 'Über proposal',
        text: 'Here it is.',
        attachments: [{ filename: 'terms.txt', content: 'net 30' }],
      })
      await send(
        catcher.port,
        { from: 'rey@demo.example', to: 'x@y.example', subject: '', text: 'second' },
        { user: 'rey', pass: 'whatever' },
      )
      expect(caught.map((m) => [m.from, m.to, m.subject])).toEqual([
        ['ada@demo.example', ['tess@client.example', 'boss@client.example'], 'Über proposal'],
        ['rey@demo.example', ['x@y.example'], ''],
      ])
      const files = (await readdir(dir)).sort()
      expect(files).toHaveLength(2)
      expect(files.every((f) => f.endsWith('.eml'))).toBe(true)
      expect(caught.map((m) => m.file).sort()).toEqual(files.map((f) => join(dir, f)))
      const first = await readFile(caught[0]?.file ?? '', 'utf8')
      expect(first).toMatch(/^Subject: =\?UTF-8\?/m)
      expect(first).toContain('filename=terms.txt')
    } finally {
      await catcher.close()
    }
  })

  it('refuses a message over its limit with 552, keeping nothing', async () => {
    const catcher = await startMailCatcher({ host: '127.0.0.1', port: 0, dir, maxBytes: 2000 })
    try {
      const sending = send(catcher.port, { from: 'a@b.example', to: 'c@d.example', text: 'x'.repeat(5000) })
      await expect(sending).rejects.toMatchObject({ responseCode: 552 })
      expect(await readdir(dir)).toEqual([])
    } finally {
      await catcher.close()
    }
  })
})

describe('leadline mail-catcher', () => {
  it('prints where it listens, one line per message, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [cliPath, 'mail-catcher', '--port', '0', '--dir', dir, '--json'])
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
    const next = async () => JSON.parse(String((await lines.next()).value)) as Record<string, unknown>
    try {
      const started = await next()
      expect(started).toEqual({ url: expect.stringMatching(/^smtp:\/\/127\.0\.0\.1:\d+$/), dir })
      const port = Number(String(started.url).split(':').at(-1))
      await send(port, { from: 'ada@demo.example', to: 'tess@client.example', subject: 'Hello', text: 'Hi' })
      const mail = await next()
      expect(mail).toMatchObject({ from: 'ada@demo.example', to: ['tess@client.example'], subject: 'Hello' })
      expect(await readFile(String(mail.file), 'utf8')).toContain('Subject: Hello')
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    }
  })
})
