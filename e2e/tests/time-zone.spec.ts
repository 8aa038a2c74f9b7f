import { expect, signIn, test } from '../fixtures.js'

test('the app tells the BFF when the browser’s time zone changes', async ({ page, context, stack }) => {
  const cdp = await context.newCDPSession(page)
  await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'America/New_York' })
  await signIn(page, stack.apiKey)
  const session = async () => {
    const res = await page.request.get('/auth/session', { headers: { 'X-Requested-With': 'leadline' } })
    const body: unknown = await res.json()
    return body
  }
  await expect.poll(session).toMatchObject({ time_zone: 'America/New_York' })

  // The laptop lands in Tokyo; the rep comes back to the tab.
  await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Asia/Tokyo' })
  const sent = page.waitForRequest((r) => r.url().endsWith('/auth/session') && r.method() === 'PUT')
  await page.evaluate(() => window.dispatchEvent(new Event('focus')))
  expect((await sent).postDataJSON()).toEqual({ time_zone: 'Asia/Tokyo' })
  await expect.poll(session).toMatchObject({ time_zone: 'Asia/Tokyo' })
})
