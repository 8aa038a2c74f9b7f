// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Outcome } from '@leadline/shared/outcome-schema'
import { describe, expect, it } from 'vitest'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { CallOutcomesPage } from './call-outcomes-page'

const outcome = (id: string, name: string, position: number): Outcome => ({
  id,
  organization_id: 'orga_1',
  name,
  description: null,
  type: 'custom',
  applies_to: ['calls', 'meetings'],
  position,
  created_by: 'user_ann',
  updated_by: 'user_ann',
  date_created: '2026-11-01T09:00:00.000000+00:00',
  date_updated: '2026-11-01T09:00:00.000000+00:00',
})
const interested = { ...outcome('outcome_a', 'Interested', 0), description: 'Wants to hear more.' }
const noAnswer = outcome('outcome_b', 'No answer', 1)
const voicemail = outcome('outcome_c', 'Left voicemail', 2)

const list = (data: Outcome[]) => ({ body: { has_more: false, data } })

function outcomesServer(outcomes: Outcome[] = [interested, noAnswer, voicemail]) {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/outcome/': list(outcomes),
  })
}

// jsdom joins a button's text and its screen-reader-only part without the space a browser gives.
const button = (action: string, name: string) => ({ name: new RegExp(`^${action}\\s*${name}$`) })

const names = () =>
  within(screen.getByRole('list', { name: 'Call outcomes' }))
    .getAllByRole('listitem')
    .map((item) =>
      within(item)
        .getByRole('button', { name: /^Drag / })
        .getAttribute('aria-label'),
    )

describe('Settings → Call outcomes', () => {
  it('lists the outcomes in the organization’s order, with their descriptions, clean under axe', async () => {
    outcomesServer()
    renderScreen(CallOutcomesPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'Call outcomes' })).toBeTruthy()
    await screen.findByRole('list', { name: 'Call outcomes' })
    expect(names()).toEqual(['Drag Interested', 'Drag No answer', 'Drag Left voicemail'])
    expect(screen.getByText('Wants to hear more.')).toBeTruthy()
    expect(screen.getByRole('button', button('Move up', 'Interested'))).toHaveProperty('disabled', true)
    expect(await axeViolations()).toEqual([])
  })

  it('Move down saves every outcome in the new order through the organization', async () => {
    const server = outcomesServer()
    server.answers['PUT /api/v1/organization/orga_1/'] = () => {
      server.answers['GET /api/v1/outcome/'] = list([noAnswer, interested, voicemail])
      return { body: {} }
    }
    renderScreen(CallOutcomesPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', button('Move down', 'Interested')))
    await waitFor(() => {
      expect(server.bodiesOf('PUT /api/v1/organization/orga_1/')).toEqual([
        { outcomes: [{ id: 'outcome_b' }, { id: 'outcome_a' }, { id: 'outcome_c' }] },
      ])
    })
    expect(names()).toEqual(['Drag No answer', 'Drag Interested', 'Drag Left voicemail'])
  })

  it('puts the old order back and says so when the API refuses the new one', async () => {
    const server = outcomesServer()
    server.answers['PUT /api/v1/organization/orga_1/'] = {
      status: 400,
      body: {
        errors: [],
        'field-errors': { outcomes: 'List every outcome of the organization exactly once, in the new order.' },
      },
    }
    renderScreen(CallOutcomesPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', button('Move up', 'Left voicemail')))
    expect(await screen.findByText('The new order of the call outcomes was not saved')).toBeTruthy()
    expect(names()).toEqual(['Drag Interested', 'Drag No answer', 'Drag Left voicemail'])
  })

  it('adds an outcome, and shows the API’s refusal beside the field', async () => {
    const server = outcomesServer()
    server.answers['POST /api/v1/outcome/'] = (body) => {
      const { name } = body as { name: string }
      if (name === 'interested')
        return {
          status: 400,
          body: { errors: [], 'field-errors': { name: 'An outcome with this name already exists.' } },
        }
      const made = outcome('outcome_d', name, 3)
      server.answers['GET /api/v1/outcome/'] = list([interested, noAnswer, voicemail, made])
      return { status: 201, body: made }
    }
    renderScreen(CallOutcomesPage)
    const user = userEvent.setup()
    const field = await screen.findByRole('textbox', { name: 'New call outcome' })
    await user.type(field, 'interested')
    await user.click(screen.getByRole('button', { name: 'Add call outcome' }))
    await waitFor(() => {
      expect(descriptionOf(field)).toContain('An outcome with this name already exists.')
    })
    await user.clear(field)
    await user.type(field, 'Demo booked{Enter}')
    await waitFor(() => {
      expect(names()).toEqual(['Drag Interested', 'Drag No answer', 'Drag Left voicemail', 'Drag Demo booked'])
    })
    expect(server.bodiesOf('POST /api/v1/outcome/')).toEqual([{ name: 'interested' }, { name: 'Demo booked' }])
  })

  it('renames an outcome inline', async () => {
    const server = outcomesServer()
    server.answers['PUT /api/v1/outcome/outcome_b/'] = (body) => {
      const renamed = { ...noAnswer, ...(body as object) }
      server.answers['GET /api/v1/outcome/'] = list([interested, renamed, voicemail])
      return { body: renamed }
    }
    renderScreen(CallOutcomesPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'Rename No answer' }))
    const field = screen.getByRole('textbox', { name: 'Name' })
    await user.clear(field)
    await user.type(field, 'Nobody picked up{Enter}')
    expect(await screen.findByRole('button', { name: 'Drag Nobody picked up' })).toBeTruthy()
    expect(server.bodiesOf('PUT /api/v1/outcome/outcome_b/')).toEqual([{ name: 'Nobody picked up' }])
  })

  it('deletes an outcome only after the confirmation', async () => {
    const server = outcomesServer()
    server.answers['DELETE /api/v1/outcome/outcome_c/'] = () => {
      server.answers['GET /api/v1/outcome/'] = list([interested, noAnswer])
      return { body: {} }
    }
    renderScreen(CallOutcomesPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', button('Delete', 'Left voicemail')))
    const dialog = await screen.findByRole('dialog', { name: 'Delete Left voicemail?' })
    expect(within(dialog).getByText('Reps can no longer pick it. Calls already logged with it keep it.')).toBeTruthy()
    expect(server.bodiesOf('DELETE /api/v1/outcome/outcome_c/')).toHaveLength(0)
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    await waitFor(() => {
      expect(names()).toEqual(['Drag Interested', 'Drag No answer'])
    })
    expect(server.bodiesOf('DELETE /api/v1/outcome/outcome_c/')).toHaveLength(1)
  })

  it('tells a non-admin kindly that it is for admins', async () => {
    fakeServer({
      'GET /auth/session': { body: { ...adminSession, role: 'user' } },
      'GET /api/v1/outcome/': list([interested]),
    })
    renderScreen(CallOutcomesPage)
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' })).toBeTruthy()
    expect(screen.queryByRole('list', { name: 'Call outcomes' })).toBeNull()
  })
})
