import { expect, signIn, test } from '../fixtures.js'

// A signed-in page carries its first screen drawn by the BFF (docs/decisions/0092): a browser shows it before the
// app's code has run, and the app then draws it again in its place, live.

test('each screen is in the page itself, inert, and the app then puts its own live screen in its place', async ({
  page,
  browser,
  stack,
  api,
}) => {
  const lead = await api.createLead({ name: 'Drawn By The Server Co', contacts: [{ name: 'Sam Server' }] })
  await signIn(page, stack.apiKey)
  // Mid-year in this year of the browser's zone, which the session takes: the report's default range. (UTC's year
  // is another one for some hours around New Year.)
  const year = String(await page.evaluate(() => new Date().getFullYear()))
  await api.request('POST', 'opportunity/', {
    lead_id: lead.id,
    value: 1_234_500,
    value_period: 'one_time',
    date_won: `${year}-06-15`,
  })

  // Without JavaScript the page shows only what the BFF drew: the screen, with the data of the person's key.
  const noScript = await browser.newContext({ javaScriptEnabled: false })
  await noScript.addCookies(await page.context().cookies())
  const still = await noScript.newPage()
  const screens = [
    { path: '/', heading: 'Leads', shows: 'Drawn By The Server Co' },
    { path: '/leads', heading: 'Leads', shows: 'Drawn By The Server Co' },
    { path: `/leads/${lead.id}`, heading: 'Drawn By The Server Co', shows: 'Sam Server' },
    { path: '/inbox', heading: 'Inbox', shows: 'Inbox' },
    { path: '/opportunities', heading: 'Opportunities', shows: 'Opportunities' },
    { path: '/settings', heading: 'Pipelines', shows: 'Sales' },
    { path: '/reports', heading: 'Reports', shows: `June ${year}` },
  ]
  for (const screen of screens) {
    const response = await still.goto(screen.path)
    // The stylesheet comes in the page, let in by the page's nonce alone.
    expect(response?.headers()['content-security-policy'], screen.path).toMatch(/style-src 'self' 'nonce-[^']+'$/)
    const drawn = still.locator('#root > div[inert]')
    await expect(drawn.locator('h1'), screen.path).toHaveText(screen.heading)
    await expect(drawn, screen.path).toContainText(screen.shows)
  }
  await noScript.close()

  // With it, the drawn screen gives way to the app's own: nothing inert is left, and the screen answers at once.
  const violations: string[] = []
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
  })
  await page.goto('/leads')
  await expect(page.locator('[inert]')).toHaveCount(0)
  await page.getByRole('button', { name: 'New lead' }).click()
  await expect(page.getByRole('dialog')).toBeVisible()
  await page.keyboard.press('Escape')
  await page.getByRole('link', { name: 'Drawn By The Server Co' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Drawn By The Server Co' })).toBeVisible()
  expect(violations).toEqual([])
})
