// The first screen's API reads, made while the app's page is on its way to a signed-in browser and written into it
// (docs/decisions/0091-first-answers-in-the-page.md). The addresses are the shared list's
// (@leadline/shared/first-screen-requests); the web app takes each answer once (web/src/lib/page-answers.ts).

import type { IncomingHttpHeaders } from 'node:http'
import { withDeadline } from '@leadline/shared/deadline'
import { PAGE_ANSWERS_ELEMENT_ID } from '@leadline/shared/first-screen-requests'
import { dataBlock } from './app-page.js'

/**
 * How long the page's end waits for the answers. The browser runs the app's modules only once the page has ended;
 * on the 2-core development machine a fresh load takes longer than this to fetch and evaluate them. An answer that
 * comes later is left out, and the app asks for it itself.
 */
export const PAGE_ANSWERS_WAIT_MS = 150

/** An answer larger than this is left out (a lead list page is some 60 kB); all of them together at most four times. */
export const PAGE_ANSWER_MAX_BYTES = 512 * 1024

/** One read with the session's key: the answer's status, its text (undefined past the proxy's limit), its fields. */
export type ReadForPage = (
  path: string,
  timeoutMs: number,
) => Promise<{ status: number; text: string | undefined; headers: IncomingHttpHeaders }>

/** The answers that came in time, each the API's JSON text by its address, in the order asked for. */
export type PageAnswers = ReadonlyMap<string, string>

/**
 * Reads `paths` and keeps what came within `waitMs`. Only a 200 with a JSON body is kept (the app asks again for
 * anything else, and shows what it gets then), each at most PAGE_ANSWER_MAX_BYTES and all at most four times that.
 */
export async function readPageAnswers(
  paths: readonly string[],
  read: ReadForPage,
  waitMs: number = PAGE_ANSWERS_WAIT_MS,
): Promise<PageAnswers> {
  const kept = new Map<string, string>()
  if (paths.length === 0) return kept
  // Filled as the answers come; what has not come by the deadline is left out (its read ends by its own timeout).
  const texts: (string | undefined)[] = paths.map(() => undefined)
  const reads = paths.map(async (path, at) => {
    try {
      const answer = await read(path, waitMs)
      const json = answer.headers['content-type']?.startsWith('application/json') === true
      if (answer.status !== 200 || !json || answer.text === undefined) return
      if (Buffer.byteLength(answer.text) > PAGE_ANSWER_MAX_BYTES) return
      texts[at] = answer.text
    } catch {
      // Unreachable, timed out: the app's own request will say so.
    }
  })
  await withDeadline(Promise.all(reads), waitMs, undefined)
  let bytes = 0
  paths.forEach((path, at) => {
    const text = texts[at]
    if (text === undefined || bytes + path.length + text.length > 4 * PAGE_ANSWER_MAX_BYTES) return
    kept.set(path, text)
    bytes += path.length + text.length
  })
  return kept
}

/** The answers' data block, `{ "<path>": <the API's JSON>, … }` (`dataBlock`), or '' for none. */
export function pageAnswersBlock(answers: PageAnswers): string {
  if (answers.size === 0) return ''
  const entries = [...answers].map(([path, text]) => `${JSON.stringify(path)}:${text}`)
  return dataBlock(PAGE_ANSWERS_ELEMENT_ID, `{${entries.join(',')}}`)
}
