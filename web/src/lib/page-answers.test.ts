// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest'
import { fakeServer } from './screen-fixture'
import { api } from './api'
import { PAGE_ANSWERS_ELEMENT_ID } from '@leadline/shared/first-screen-requests'
import { adoptPageAnswers, PAGE_ANSWER_LIFETIME_MS, takePageAnswer } from './page-answers'

function pageWith(text: string | undefined): void {
  document.body.innerHTML =
    text === undefined ? '' : `<script type="application/json" id="${PAGE_ANSWERS_ELEMENT_ID}">${text}</script>`
}

afterEach(() => {
  document.body.innerHTML = ''
  // No answers left over for the next test.
  adoptPageAnswers(document)
})

describe('the answers the page came with', () => {
  it('answers the first read of exactly that address, with no request, once; the block leaves the page', async () => {
    const server = fakeServer({ 'GET /api/v1/status/lead/': { body: { data: ['fresh'] } } })
    pageWith(JSON.stringify({ '/api/v1/status/lead/': { data: ['from the page'] } }))
    adoptPageAnswers(document)
    expect(document.getElementById(PAGE_ANSWERS_ELEMENT_ID)).toBeNull()
    expect(await api.get('status/lead/')).toEqual({ data: ['from the page'] })
    expect(server.sent).toEqual([])
    // Asked again (a refetch, another screen), it goes to the API.
    expect(await api.get('status/lead/')).toEqual({ data: ['fresh'] })
    expect(server.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/status/lead/'])
  })

  it('another address, another method, or a query written otherwise goes to the API', async () => {
    const server = fakeServer({
      'GET /api/v1/lead/': { body: { data: [] } },
      'POST /api/v1/lead/': { body: { id: 'lead_1' } },
    })
    pageWith(JSON.stringify({ '/api/v1/lead/?_skip=0&_limit=50': { data: ['page'] } }))
    adoptPageAnswers(document)
    await api.post('lead/', { name: 'Acme' })
    await api.get('lead/', { _limit: 50, _skip: 0 })
    expect(server.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/v1/lead/', 'GET /api/v1/lead/'])
    expect(await api.get('lead/', { _skip: 0, _limit: 50 })).toEqual({ data: ['page'] })
  })

  it('is used only while the page is fresh', () => {
    pageWith(JSON.stringify({ '/api/v1/a/': 1, '/api/v1/b/': 2 }))
    adoptPageAnswers(document, 1000)
    expect(takePageAnswer('/api/v1/a/', 1000 + PAGE_ANSWER_LIFETIME_MS)).toBe(1)
    expect(takePageAnswer('/api/v1/b/', 1001 + PAGE_ANSWER_LIFETIME_MS)).toBeUndefined()
  })

  it('a page without a block, or with one that does not read as answers, leaves every read to the API', async () => {
    for (const text of [undefined, '{"/api/v1/a/":', '[1]', 'null', '{"https://elsewhere.example/a":1}']) {
      fakeServer({ 'GET /api/v1/a/': { body: { fresh: true } } })
      pageWith(text)
      adoptPageAnswers(document)
      expect(document.getElementById(PAGE_ANSWERS_ELEMENT_ID)).toBeNull()
      expect(takePageAnswer('https://elsewhere.example/a'), String(text)).toBeUndefined()
      expect(await api.get('a/'), String(text)).toEqual({ fresh: true })
    }
  })
})
