import { expect, signIn, test } from '../fixtures.js'

// A page opened at a screen comes with that screen's first API answers (docs/decisions/0091): the screen shows them
// without asking the API again, and shows the data as the API has it.

/** The addresses whose answers a page came with. */
function answeredIn(page: string): string[] {
  const block = /<script type="application\/json" id="leadline-answers">([^]*?)<\/script>/.exec(page)?.[1]
  return block === undefined ? [] : Object.keys(JSON.parse(block) as Record<string, unknown>)
}

/** An API address as its path and the names of its parameters: the same read, however its values are written. */
function shapeOf(address: string): string {
  const url = new URL(address, 'http://x')
  return `${url.pathname}?${[...url.searchParams.keys()].sort().join('&')}`
}

test('each screen opened from a link reads its first answers from the page, and asks the API for none of them', async ({
  page,
  stack,
  api,
}) => {
  const lead = await api.createLead({ name: 'Answered In The Page Co' })
  await signIn(page, stack.apiKey)
  const screens = [
    { path: '/', heading: 'Leads' },
    { path: '/leads', heading: 'Leads' },
    { path: `/leads/${lead.id}`, heading: 'Answered In The Page Co' },
    { path: '/inbox', heading: 'Inbox' },
    { path: '/opportunities', heading: 'Opportunities' },
    { path: '/settings', heading: 'Pipelines' },
  ]
  for (const screen of screens) {
    const answered = answeredIn(
      await (await page.request.get(screen.path, { headers: { accept: 'text/html' } })).text(),
    )
    expect(answered.length, screen.path).toBeGreaterThan(0)
    const asked: string[] = []
    const record = (request: { url: () => string; method: () => string }) => {
      const url = new URL(request.url())
      if (request.method() === 'GET' && url.pathname.startsWith('/api/')) asked.push(url.pathname + url.search)
    }
    page.on('request', record)
    await page.goto(screen.path)
    await expect(page.getByRole('heading', { level: 1, name: screen.heading })).toBeVisible()
    await page.waitForLoadState('networkidle')
    page.off('request', record)
    // Not asked again, nor asked for in another spelling of the same read.
    const askedShapes = new Set(asked.map(shapeOf))
    for (const address of answered) expect(askedShapes.has(shapeOf(address)), `${screen.path}: ${address}`).toBe(false)
  }
  // The lead page shows what its answers held.
  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('heading', { level: 1, name: 'Answered In The Page Co' })).toBeVisible()
})
