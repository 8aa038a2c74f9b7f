import { CrmClient, demoTest as test, expect, type DemoUser } from '../fixtures.js'

const nameOf = (user: DemoUser) => `${user.first_name} ${user.last_name}`

test('a newcomer signs in with one click as the demo admin, then as a rep, and works a demo lead', async ({
  page,
  demoStack,
}) => {
  const admin = demoStack.users.find((u) => u.title === 'admin')
  const rep = demoStack.users.find((u) => u.title === 'rep')
  if (admin === undefined || rep === undefined) throw new Error('the demo seed has no admin or no rep')

  await page.goto('/sign-in')
  const demo = page.getByRole('region', { name: 'Try the demo organization' })
  await demo.getByRole('button', { name: `Sign in as ${nameOf(admin)}` }).click()
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()
  await expect(page.getByText(demoStack.organizationName)).toBeVisible()
  await expect(page.getByText(admin.email)).toBeVisible()

  // The seeded leads are listed; the first one opens with its contacts and its timeline.
  const leads = page.getByRole('table').getByRole('link')
  await expect(leads).toHaveCount(5)
  const leadName = (await leads.first().textContent()) ?? ''
  await leads.first().click()
  await expect(page.getByRole('heading', { level: 1, name: leadName })).toBeVisible()
  const leadId = new URL(page.url()).pathname.split('/').at(-1) ?? ''
  const contacts = await new CrmClient(demoStack.apiUrl, admin.api_key).request('GET', `contact/?lead_id=${leadId}`)
  const contactNames = Array.isArray(contacts.data)
    ? contacts.data.map((c: unknown) => (typeof c === 'object' && c !== null && 'name' in c ? String(c.name) : ''))
    : []
  expect(contactNames.length).toBeGreaterThan(0)
  const contactsPanel = page.getByRole('region', { name: 'Contacts' })
  for (const name of contactNames)
    await expect(contactsPanel.getByRole('button', { name: `Edit contact ${name}` })).toBeVisible()
  const timeline = page.getByRole('region', { name: 'Activity' })
  await expect(timeline.getByRole('article', { name: /^Created by / })).toBeVisible()

  // Working the lead: a note lands on the timeline.
  await page.getByRole('textbox', { name: 'Note' }).fill('Demo call went well')
  await page.getByRole('button', { name: 'Save note' }).click()
  await expect(timeline.getByRole('article').filter({ hasText: 'Demo call went well' })).toBeVisible()

  // No demo key ever reaches the page.
  for (const user of demoStack.users) expect(await page.content()).not.toContain(user.api_key)

  await page.getByRole('button', { name: 'Sign out' }).click()
  await page
    .getByRole('region', { name: 'Try the demo organization' })
    .getByRole('button', {
      name: `Sign in as ${nameOf(rep)}`,
    })
    .click()
  await expect(page.getByText(rep.email)).toBeVisible()
  const session: unknown = await (
    await page.request.get('/auth/session', { headers: { 'X-Requested-With': 'leadline' } })
  ).json()
  expect(session).toMatchObject({ user: { email: rep.email }, role: 'user' })
  await page.getByRole('table').getByRole('link', { name: leadName }).click()
  await expect(page.getByRole('heading', { level: 1, name: leadName })).toBeVisible()
  await expect(page.getByRole('region', { name: 'Activity' }).getByText('Demo call went well')).toBeVisible()
  await expect(
    page
      .getByRole('region', { name: 'Contacts' })
      .getByRole('button', { name: `Edit contact ${contactNames[0] ?? ''}` }),
  ).toBeVisible()
})
