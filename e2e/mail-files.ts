import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { simpleParser } from 'mailparser'
import { expect } from '@playwright/test'

// What `leadline mail-catcher` kept: one `.eml` file per message. The account journeys read their links from them,
// as a person would from their inbox.

/** The text of the newest message to `to` whose subject matches, once one has arrived (polled for 10 s). */
export async function mailTo(dir: string, to: string, subject: RegExp): Promise<string> {
  let found: string | undefined
  await expect
    .poll(
      async () => {
        const files = safeList(dir)
          .filter((name) => name.endsWith('.eml'))
          .sort()
          .reverse()
        for (const name of files) {
          const mail = await simpleParser(readFileSync(join(dir, name)))
          const recipients = [mail.to ?? []].flat().flatMap((a) => a.value.map((v) => v.address?.toLowerCase()))
          if (recipients.includes(to.toLowerCase()) && subject.test(mail.subject ?? '')) {
            found = mail.text ?? ''
            return true
          }
        }
        return false
      },
      { timeout: 10_000 },
    )
    .toBe(true)
  return found ?? ''
}

/** The path and query of the first link in `text` to `path` on the app (`/accept-invitation?token=…`). */
export function appLink(text: string, path: string): string {
  const start = text.indexOf(path)
  if (start < 0) throw new Error(`no link to ${path} in:\n${text}`)
  const end = text.slice(start).search(/\s/)
  return end < 0 ? text.slice(start) : text.slice(start, start + end)
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
