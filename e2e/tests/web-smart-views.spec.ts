import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import { demoUser, expectAccessible, signInAs } from '../journeys.js'

// Smart Views on the leads list: a rep saves a search as a view, shares it, reloads its URL, and another user of
// the organization opens it from the list of views.

test('a rep saves a search as a Smart View and shares it; another user opens it', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  const admin = demoUser(demoStack.users, 'admin')
  const crm = new CrmClient(demoStack.apiUrl, admin.api_key)
  const stamp = String(Date.now()).slice(-6)
  for (const n of ['1', '2', '3']) await crm.request('POST', 'lead/', { name: `Viewwalker ${stamp} ${n}` })
  await crm.request('POST', 'lead/', { name: `Someone Else ${stamp}` })

  await signInAs(page, rep)
  await page.getByRole('link', { name: 'Leads', exact: true }).first().click()
  await page.getByRole('textbox', { name: 'Search leads' }).fill(`name:"Viewwalker ${stamp}"`)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expect(page.getByRole('table', { name: 'Leads' }).getByRole('link')).toHaveCount(3)
  await expect(page.getByText('3 leads', { exact: true })).toBeVisible()

  await page.getByRole('button', { name: 'Save as Smart View' }).click()
  const dialog = page.getByRole('dialog', { name: 'Save as Smart View' })
  await dialog.getByRole('textbox', { name: 'Name' }).fill(`Walkers ${stamp}`)
  await expectAccessible(page)
  await dialog.getByRole('button', { name: 'Save view' }).click()
  await expect(dialog).toHaveCount(0)
  await expect(page.getByRole('heading', { level: 1, name: `Walkers ${stamp}` })).toBeVisible()
  await expect(page).toHaveURL(/[?&]smart_view=save_/)
  const views = page.getByRole('navigation', { name: 'Smart Views' })
  await expect(views.getByRole('link', { name: `Walkers ${stamp}` })).toHaveAttribute('aria-current', 'page')

  // Shared, then the view's URL reloaded: the view's search, its name and its count come back from the URL alone.
  await page.getByRole('button', { name: 'Share view' }).click()
  await expect(page.getByRole('button', { name: 'Stop sharing' })).toBeVisible()
  const viewUrl = page.url()
  await page.reload()
  await expect(page.getByRole('heading', { level: 1, name: `Walkers ${stamp}` })).toBeVisible()
  await expect(page.getByRole('table', { name: 'Leads' }).getByRole('link')).toHaveCount(3)
  await expect(page.getByRole('textbox', { name: 'Search leads' })).toHaveValue(`name:"Viewwalker ${stamp}"`)
  await expectAccessible(page)

  // Another user of the organization sees it among the views, shared, and opens it.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await signInAs(page, admin)
  await page.goto('/leads')
  const shared = page.getByRole('navigation', { name: 'Smart Views' }).getByRole('link', {
    name: `Walkers ${stamp} (shared)`,
  })
  await expect(shared).toBeVisible()
  await shared.click()
  await expect(page.getByRole('heading', { level: 1, name: `Walkers ${stamp}` })).toBeVisible()
  const names = await page.getByRole('table', { name: 'Leads' }).getByRole('link').allInnerTexts()
  expect(names.toSorted()).toEqual(['1', '2', '3'].map((n) => `Viewwalker ${stamp} ${n}`))
  expect(page.url()).toBe(viewUrl)
  await expectAccessible(page)
})

test('a view left unshared is its owner’s alone: another user’s link to it says it is not there', async ({
  page,
  demoStack,
}) => {
  const rep = demoUser(demoStack.users, 'rep')
  const admin = demoUser(demoStack.users, 'admin')
  const mine = new CrmClient(demoStack.apiUrl, rep.api_key)
  const view = await mine.request('POST', 'saved_search/', { name: 'Private to the rep', query: 'name:acme' })
  await signInAs(page, admin)
  await page.goto(`/leads?smart_view=${String(view.id)}`)
  await expect(page.getByText('This Smart View is not there')).toBeVisible()
  await expect(
    page.getByRole('navigation', { name: 'Smart Views' }).getByRole('link', { name: /Private to the rep/ }),
  ).toHaveCount(0)
  await expectAccessible(page)
})
