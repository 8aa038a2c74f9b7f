import { describe, expect, test } from 'vitest'
import { PAGE_ANSWERS_ELEMENT_ID } from '@leadline/shared/first-screen-requests'
import { PAGE_ANSWER_MAX_BYTES, pageAnswersBlock, readPageAnswers, type ReadForPage } from './page-answers.js'

/** The block of what `readPageAnswers` kept. */
async function blockOf(paths: readonly string[], read: ReadForPage, waitMs?: number): Promise<string> {
  return pageAnswersBlock(await readPageAnswers(paths, read, waitMs))
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' }

/** A read answering each path from `answers` (after its delay), and one that never answers for a missing path. */
function reads(
  answers: Record<string, { status?: number; text: string; type?: string; delayMs?: number }>,
): ReadForPage {
  return async (path) => {
    const answer = answers[path]
    if (answer === undefined) return new Promise(() => undefined)
    if (answer.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, answer.delayMs))
    return {
      status: answer.status ?? 200,
      text: answer.text,
      headers: answer.type === undefined ? JSON_TYPE : { 'content-type': answer.type },
    }
  }
}

function parse(block: string): unknown {
  const open = `<script type="application/json" id="${PAGE_ANSWERS_ELEMENT_ID}">`
  expect(block.startsWith(open) && block.endsWith('</script>')).toBe(true)
  return JSON.parse(block.slice(open.length, -'</script>'.length))
}

describe('pageAnswersBlock', () => {
  test('writes each answer under its address, as the API wrote it', async () => {
    const block = await blockOf(
      ['/api/v1/a/', '/api/v1/b/?x=1'],
      reads({ '/api/v1/a/': { text: '{"data":[1,2]}' }, '/api/v1/b/?x=1': { text: '{"id":"b"}' } }),
    )
    expect(parse(block)).toEqual({ '/api/v1/a/': { data: [1, 2] }, '/api/v1/b/?x=1': { id: 'b' } })
  })

  test('leaves out what is not a 200 in JSON, too large, failed or late, and ends on time', async () => {
    const large = JSON.stringify({ text: 'x'.repeat(PAGE_ANSWER_MAX_BYTES) })
    const started = Date.now()
    const block = await blockOf(
      ['/ok', '/missing', '/html', '/large', '/failed', '/late', '/never'],
      async (path, timeoutMs) => {
        expect(timeoutMs).toBe(100)
        if (path === '/failed') throw new Error('unreachable')
        return reads({
          '/ok': { text: '{"ok":true}' },
          '/missing': { status: 404, text: '{"error":"Not found."}' },
          '/html': { text: '<p>', type: 'text/html' },
          '/large': { text: large },
          '/late': { text: '{"late":true}', delayMs: 300 },
        })(path, timeoutMs)
      },
      100,
    )
    expect(Date.now() - started).toBeLessThan(290)
    expect(parse(block)).toEqual({ '/ok': { ok: true } })
  })

  test('nothing to read or nothing answered: no block', async () => {
    expect(await blockOf([], reads({}))).toBe('')
    expect(await blockOf(['/never'], reads({}), 20)).toBe('')
  })

  test('no value can end the block or open a comment, and the JSON reads back the same', async () => {
    const value = { name: '</script><script>alert(1)</script><!--', other: 'a<b' }
    const block = await blockOf(['/a'], reads({ '/a': { text: JSON.stringify(value) } }))
    expect(block.match(/<\/script>/g)).toHaveLength(1)
    expect(block).not.toContain('<!--')
    expect(parse(block)).toEqual({ '/a': value })
  })
})
