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

test('a rep chooses columns and sorts by a header; a saved view keeps its columns', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  const crm = new CrmClient(demoStack.apiUrl, rep.api_key)
  const stamp = String(Date.now()).slice(-6)
  const statuses: Record<string, string> = { A: 'Qualified', B: 'Customer', C: 'Potential' }
  for (const n of ['B', 'C', 'A']) {
    await crm.request('POST', 'lead/', {
      name: `Columnwalker ${stamp} ${n}`,
      status: statuses[n],
      contacts: [{ name: `Person ${n}`, emails: [{ email: `${n.toLowerCase()}${stamp}@columns.example` }] }],
    })
  }
  await signInAs(page, rep)
  await page.goto(`/leads?query=${encodeURIComponent(`name:"Columnwalker ${stamp}"`)}`)
  const table = page.getByRole('table', { name: 'Leads' })
  await expect(table.getByRole('link')).toHaveCount(3)

  await page.getByRole('button', { name: 'Columns' }).click()
  const dialog = page.getByRole('dialog', { name: 'Choose columns' })
  await dialog.getByRole('checkbox', { name: 'Primary contact' }).uncheck()
  await dialog.getByRole('checkbox', { name: 'Primary email' }).check()
  await expectAccessible(page)
  await dialog.getByRole('button', { name: 'Show columns' }).click()
  await expect(dialog).toHaveCount(0)
  await expect(table.getByRole('columnheader')).toHaveText(['', /^Name/, 'Status', 'Updated', 'Primary email'])

  const names = () => table.getByRole('link').allInnerTexts()
  // Every header sorts: Status by its label, then the other way.
  await table.getByRole('button', { name: 'Status', exact: true }).click()
  await expect(page).toHaveURL(/sort%3Astatus|sort:status/)
  await expect(table.getByRole('columnheader', { name: 'Status' })).toHaveAttribute('aria-sort', 'ascending')
  await expect.poll(names).toEqual(['B', 'C', 'A'].map((n) => `Columnwalker ${stamp} ${n}`))
  await table.getByRole('button', { name: 'Status', exact: true }).click()
  await expect(table.getByRole('columnheader', { name: 'Status' })).toHaveAttribute('aria-sort', 'descending')
  await expect.poll(names).toEqual(['A', 'C', 'B'].map((n) => `Columnwalker ${stamp} ${n}`))
  await table.getByRole('button', { name: 'Primary email', exact: true }).click()
  await expect(table.getByRole('columnheader', { name: 'Primary email' })).toHaveAttribute('aria-sort', 'ascending')
  await expect(table.getByRole('columnheader', { name: 'Status' })).not.toHaveAttribute('aria-sort')
  await expect.poll(names).toEqual(['A', 'B', 'C'].map((n) => `Columnwalker ${stamp} ${n}`))
  await table.getByRole('button', { name: 'Name' }).click()
  await expect(page).toHaveURL(/sort%3Aname|sort:name/)
  await expect(table.getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'ascending')
  await expect.poll(names).toEqual(['A', 'B', 'C'].map((n) => `Columnwalker ${stamp} ${n}`))
  await table.getByRole('button', { name: 'Name' }).click()
  await expect(table.getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'descending')
  await expect.poll(names).toEqual(['C', 'B', 'A'].map((n) => `Columnwalker ${stamp} ${n}`))
  await expect(table.getByRole('row').nth(1).getByRole('cell').nth(4)).toHaveText(`c${stamp}@columns.example`)

  // Saved as a view, the columns go with it: the view's URL shows them in a browser that never chose them.
  await page.getByRole('button', { name: 'Save as Smart View' }).click()
  const save = page.getByRole('dialog', { name: 'Save as Smart View' })
  await save.getByRole('textbox', { name: 'Name' }).fill(`Columns ${stamp}`)
  await save.getByRole('button', { name: 'Save view' }).click()
  await expect(page.getByRole('heading', { level: 1, name: `Columns ${stamp}` })).toBeVisible()
  await page.getByRole('button', { name: 'Columns' }).click()
  await page.getByRole('dialog', { name: 'Choose columns' }).getByRole('checkbox', { name: 'Created' }).check()
  await page.getByRole('dialog', { name: 'Choose columns' }).getByRole('button', { name: 'Show columns' }).click()
  await expect(table.getByRole('columnheader')).toHaveText([
    '',
    /^Name/,
    'Status',
    'Updated',
    'Primary email',
    'Created',
  ])
  const viewUrl = page.url()
  await page.evaluate(() => {
    window.localStorage.clear()
  })
  await page.goto(viewUrl)
  await expect(table.getByRole('columnheader')).toHaveText([
    '',
    /^Name/,
    'Status',
    'Updated',
    'Primary email',
    'Created',
  ])
  await expect.poll(names).toEqual(['C', 'B', 'A'].map((n) => `Columnwalker ${stamp} ${n}`))
})
