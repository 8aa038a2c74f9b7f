// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { CustomFieldsPage } from './custom-fields-page'

function field(id: string, name: string, more: Partial<CustomField> = {}): CustomField {
  return {
    id,
    name,
    description: null,
    type: 'text',
    choices: null,
    accepts_multiple_values: false,
    position: 0,
    organization_id: 'orga_1',
    created_by: null,
    updated_by: null,
    date_created: '2026-10-01T09:00:00.000000+00:00',
    date_updated: '2026-10-01T09:00:00.000000+00:00',
    ...more,
  }
}

const industry = field('cf_industry', 'Industry', { type: 'choices', choices: ['Retail', 'Software'] })
const employees = field('cf_employees', 'Employees', { type: 'number', position: 1 })
const role = field('cf_role', 'Decision role')

/** A button's name: its text, then the hidden name of what it acts on (jsdom drops the space between them). */
const named = (action: string, subject: string) => new RegExp(`^${action} ?${subject}$`)

/** Role queries walk the whole screen, which takes seconds in jsdom on a busy machine. */
const slow = { timeout: 10_000 }

const list = (data: CustomField[]) => ({ body: { has_more: false, data } })

function fieldsServer() {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/custom_field/lead/': list([industry, employees]),
    'GET /api/v1/custom_field/contact/': list([role]),
    'GET /api/v1/custom_field/opportunity/': list([]),
  })
}

describe('Settings → Custom fields', { timeout: 120_000 }, () => {
  it('lists lead, contact and opportunity fields in their order, with their types', async () => {
    fieldsServer()
    renderScreen(CustomFieldsPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'Custom fields' }, slow)).toBeTruthy()
    const leads = screen.getByRole('region', { name: 'Lead fields' })
    const items = within(within(leads).getByRole('list', { name: 'Lead fields' })).getAllByRole('listitem')
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringContaining('Industry'),
      expect.stringContaining('Employees'),
    ])
    expect(within(leads).getByText('Choices · Retail, Software')).toBeTruthy()
    expect(within(screen.getByRole('list', { name: 'Contact fields' })).getByRole('listitem').textContent).toContain(
      'Decision role',
    )
    expect(
      within(screen.getByRole('region', { name: 'Opportunity fields' })).getByText('No opportunity fields yet.'),
    ).toBeTruthy()
    expect(await axeViolations()).toEqual([])
  })

  it('creates a choices field with its choices in order, and shows the API’s field error beside the name', async () => {
    const server = fieldsServer()
    const made = field('cf_tier', 'Tier', {
      type: 'choices',
      choices: ['Gold', 'Silver'],
      accepts_multiple_values: true,
    })
    let tries = 0
    server.answers['POST /api/v1/custom_field/opportunity/'] = () => {
      tries += 1
      if (tries === 1) {
        return {
          status: 400,
          body: { errors: [], 'field-errors': { name: 'A opportunity custom field with this name already exists.' } },
        }
      }
      server.answers['GET /api/v1/custom_field/opportunity/'] = list([made])
      return { body: made }
    }
    renderScreen(CustomFieldsPage)
    const user = userEvent.setup()
    const section = await screen.findByRole('region', { name: 'Opportunity fields' }, slow)
    await user.click(within(section).getByRole('button', { name: 'Add opportunity field' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add opportunity field' }, slow)
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Tier')
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Type' }), 'Choices')
    const choice = within(dialog).getByRole('textbox', { name: 'New choice' })
    for (const name of ['Silver', 'Gold', 'Bronze']) {
      await user.type(choice, name)
      await user.click(within(dialog).getByRole('button', { name: 'Add choice' }))
    }
    await user.click(within(dialog).getByRole('button', { name: named('Up', 'Gold') }))
    await user.click(within(dialog).getByRole('button', { name: named('Remove', 'Bronze') }))
    await user.click(within(dialog).getByRole('checkbox', { name: 'Accepts multiple values' }))
    expect(await axeViolations()).toEqual([])
    await user.click(within(dialog).getByRole('button', { name: 'Add opportunity field' }))
    const name = within(dialog).getByRole('textbox', { name: 'Name' })
    await waitFor(() => {
      expect(descriptionOf(name)).toBe('A opportunity custom field with this name already exists.')
    }, slow)
    await user.click(within(dialog).getByRole('button', { name: 'Add opportunity field' }))
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).toBeNull()
    }, slow)
    expect(server.bodiesOf('POST /api/v1/custom_field/opportunity/')[1]).toEqual({
      name: 'Tier',
      description: null,
      type: 'choices',
      choices: ['Gold', 'Silver'],
      accepts_multiple_values: true,
    })
    const shown = await within(section).findByRole('list', { name: 'Opportunity fields' }, slow)
    expect(shown.textContent).toContain('Choices · multiple values · Gold, Silver')
  })

  it('shows a refused choices change beside the choices', async () => {
    const server = fieldsServer()
    server.answers['PUT /api/v1/custom_field/lead/cf_industry/'] = {
      status: 400,
      body: { errors: [], 'field-errors': { choices: 'A choices field needs a list of at least one choice.' } },
    }
    renderScreen(CustomFieldsPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: named('Edit', 'Industry') }, slow))
    const dialog = await screen.findByRole('dialog', { name: named('Edit', 'Industry') }, slow)
    await user.click(within(dialog).getByRole('button', { name: named('Remove', 'Retail') }))
    await user.click(within(dialog).getByRole('button', { name: named('Remove', 'Software') }))
    await user.clear(within(dialog).getByRole('textbox', { name: 'Name' }))
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Sector')
    await user.click(within(dialog).getByRole('button', { name: 'Save field' }))
    const choices = within(dialog).getByRole('group', { name: 'Choices' })
    await waitFor(() => {
      expect(descriptionOf(choices)).toBe('A choices field needs a list of at least one choice.')
    }, slow)
    expect(server.bodiesOf('PUT /api/v1/custom_field/lead/cf_industry/')).toEqual([
      { name: 'Sector', description: null, type: 'choices', choices: [], accepts_multiple_values: false },
    ])
  })

  it('saves a new order through the lead schema', async () => {
    const server = fieldsServer()
    server.answers['PUT /api/v1/custom_field_schema/lead/'] = () => {
      server.answers['GET /api/v1/custom_field/lead/'] = list([employees, industry])
      return { body: { fields: [employees, industry] } }
    }
    renderScreen(CustomFieldsPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: named('Move down', 'Industry') }, slow))
    await waitFor(() => {
      expect(server.bodiesOf('PUT /api/v1/custom_field_schema/lead/')).toEqual([
        { fields: [{ id: 'cf_employees' }, { id: 'cf_industry' }] },
      ])
    }, slow)
    const items = within(screen.getByRole('list', { name: 'Lead fields' })).getAllByRole('listitem')
    expect(items[0]?.textContent).toContain('Employees')
  })

  it('deletes a field after a confirmation that says how many values go with it', async () => {
    const server = fieldsServer()
    server.answers['GET /api/v1/custom_field/lead/cf_industry/usage/'] = { body: { values: 12 } }
    server.answers['DELETE /api/v1/custom_field/lead/cf_industry/'] = () => {
      server.answers['GET /api/v1/custom_field/lead/'] = list([employees])
      return { body: {} }
    }
    renderScreen(CustomFieldsPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: named('Delete', 'Industry') }, slow))
    const dialog = await screen.findByRole('dialog', { name: 'Delete the lead field Industry?' }, slow)
    expect(await within(dialog).findByText(/Deleting Industry removes its 12 values\./, {}, slow)).toBeTruthy()
    expect(server.bodiesOf('DELETE /api/v1/custom_field/lead/cf_industry/')).toHaveLength(0)
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    await waitFor(() => {
      expect(screen.getByRole('list', { name: 'Lead fields' }).textContent).not.toContain('Industry')
    }, slow)
    expect(server.bodiesOf('DELETE /api/v1/custom_field/lead/cf_industry/')).toHaveLength(1)
  })

  it('tells a non-admin that settings are for admins', async () => {
    const server = fieldsServer()
    server.answers['GET /auth/session'] = { body: { ...adminSession, role: 'user' } }
    renderScreen(CustomFieldsPage)
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' }, slow)).toBeTruthy()
    expect(server.sent.map((r) => r.path)).not.toContain('/api/v1/custom_field/lead/')
  })
})
