import { PAGE_ANSWERS_ELEMENT_ID } from '@leadline/shared/first-screen-requests'
import { takeDataBlock } from './data-block'
import { isRecord } from './record'

// The answers the BFF wrote into the page it served (bff/src/page-answers.ts): the first API reads of the screen the
// page was opened at (@leadline/shared/first-screen-requests), made while the page was on its way. Each is given once,
// to the first read of exactly its address, and only while the page is fresh: a later read goes over the network.

/** How long after the page's start an answer it came with may still be used: the first screen's reads come sooner. */
export const PAGE_ANSWER_LIFETIME_MS = 10_000

let answers = new Map<string, unknown>()
let adoptedAt = 0

/**
 * Takes the answers out of the page's data block (and the block out of the page). A page without one, or with one
 * that is not an object of addresses, leaves none: every read goes over the network.
 */
export function adoptPageAnswers(document: Document, now: number = performance.now()): void {
  answers = new Map()
  adoptedAt = now
  const parsed = takeDataBlock(document, PAGE_ANSWERS_ELEMENT_ID)
  if (!isRecord(parsed)) return
  for (const [url, body] of Object.entries(parsed)) if (url.startsWith('/api/')) answers.set(url, body)
}

/** The page's answer to a GET of `url`, given once and only while the page is fresh; undefined otherwise. */
export function takePageAnswer(url: string, now: number = performance.now()): unknown {
  if (answers.size === 0) return undefined
  if (now - adoptedAt > PAGE_ANSWER_LIFETIME_MS) {
    answers.clear()
    return undefined
  }
  const body = answers.get(url)
  answers.delete(url)
  return body
}

/**
 * In the BFF's server render (server-render.tsx) every request is answered from the answers the BFF read for the
 * page, and nothing goes over a network: a request they do not answer fails, and the page is then not rendered there.
 */
export type ServerReads = (method: string, url: string) => unknown

let serverReads: ServerReads | undefined

/** Set once by the server render's module; never in a browser. */
export function readOnServerWith(reads: ServerReads): void {
  serverReads = reads
}

/** The server's reads, when this code runs in the BFF's server render. */
export function readsOnServer(): ServerReads | undefined {
  return serverReads
}
