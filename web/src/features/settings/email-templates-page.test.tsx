// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { EmailTemplate } from '@leadline/shared/email-template-schema'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { EmailTemplatesPage } from './email-templates-page'

const intro: EmailTemplate = {
  id: 'tmpl_intro',
  organization_id: 'orga_1',
  name: 'Intro',
  subject: 'Hello {{ contact.first_name }}',
  body: '<p>Hi {{ contact.first_name }} at {{ lead.display_name }}</p>',
  is_shared: true,
  is_archived: false,
  attachments: [],
  created_by: 'user_ann',
  updated_by: 'user_ann',
  date_created: '2026-10-01T09:00:00.000000+00:00',
  date_updated: '2026-10-01T09:00:00.000000+00:00',
}
const followUp: EmailTemplate = {
  ...intro,
  id: 'tmpl_follow',
  name: 'Follow up',
  subject: 'Checking in',
  is_shared: false,
}

const list = (data: unknown[]) => ({ body: { has_more: false, data } })

function templatesServer() {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/email_template/': list([followUp, intro]),
  })
}

describe('Settings → Email templates', () => {
  it('lists shared and personal templates, saying which', async () => {
    templatesServer()
    renderScreen(EmailTemplatesPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'Email templates' })).toBeTruthy()
    const table = await screen.findByRole('table', { name: 'Email templates' })
    const row = (name: string) => within(table).getByRole('rowheader', { name }).closest('tr')
    expect(row('Intro')?.textContent).toContain('Shared')
    expect(row('Follow up')?.textContent).toContain('Personal')
    expect(await axeViolations()).toEqual([])
  })

  it('creates a template, showing the API’s field errors beside the fields', async () => {
    const server = templatesServer()
    server.answers['POST /api/v1/email_template/'] = (body) => {
      const sent = body as { subject: string }
      if (sent.subject.includes('{{ oops'))
        return { status: 400, body: { errors: [], 'field-errors': { subject: 'The template does not parse.' } } }
      server.answers['GET /api/v1/email_template/'] = list([
        followUp,
        intro,
        { ...intro, id: 'tmpl_new', name: 'Demo' },
      ])
      return { body: { ...intro, id: 'tmpl_new', name: 'Demo' } }
    }
    renderScreen(EmailTemplatesPage)
    const user = userEvent.setup()
    await screen.findByRole('table', { name: 'Email templates' })
    await user.click(screen.getByRole('button', { name: 'New template' }))
    const dialog = await screen.findByRole('dialog', { name: 'New template' })
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Demo')
    const subject = within(dialog).getByRole('textbox', { name: 'Subject' })
    await user.type(subject, 'Hi {{{{ oops')
    await user.type(within(dialog).getByRole('textbox', { name: 'Body' }), 'Hello')
    await user.click(within(dialog).getByRole('button', { name: 'Create template' }))
    await waitFor(() => {
      expect(descriptionOf(subject)).toContain('The template does not parse.')
    })
    expect(await axeViolations()).toEqual([])
    await user.clear(subject)
    await user.type(subject, 'Hi')
    await user.click(within(dialog).getByRole('checkbox', { name: /Shared with everyone/ }))
    await user.click(within(dialog).getByRole('button', { name: 'Create template' }))
    expect(await screen.findByRole('rowheader', { name: 'Demo' })).toBeTruthy()
    expect(server.bodiesOf('POST /api/v1/email_template/').at(-1)).toEqual({
      name: 'Demo',
      subject: 'Hi',
      body: 'Hello',
      is_shared: false,
      attachments: [],
    })
  })

  it('previews a template for a lead and contact picked, with the API’s warnings', async () => {
    const server = templatesServer()
    server.answers['GET /api/v1/lead/'] = list([{ id: 'lead_1', display_name: 'Bluth Company' }])
    server.answers['GET /api/v1/contact/'] = list([
      { id: 'cont_1', name: 'George Bluth', display_name: 'George Bluth' },
    ])
    server.answers['GET /api/v1/email_template/tmpl_intro/render/'] = {
      body: {
        subject: 'Hello George',
        body: '<p>Hi George at Bluth Company</p>',
        body_html: '<p>Hi George at Bluth Company</p>',
        body_text: 'Hi George at Bluth Company',
        warnings: ['contact.nickname does not exist'],
      },
    }
    renderScreen(EmailTemplatesPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'Preview Intro' }))
    const preview = await screen.findByRole('region', { name: 'Preview of “Intro”' })
    await user.type(within(preview).getByRole('combobox', { name: 'Lead' }), 'Bluth')
    await user.click(await screen.findByRole('option', { name: 'Bluth Company' }))
    expect(await within(preview).findByText('Hello George')).toBeTruthy()
    expect(preview.textContent).toContain('Hi George at Bluth Company')
    expect(preview.textContent).toContain('contact.nickname does not exist')
    expect(within(preview).getByRole<HTMLSelectElement>('combobox', { name: 'Contact' }).value).toBe('cont_1')
    expect(await axeViolations()).toEqual([])
  })

  it('edits a template’s attached files: listed, removable, saved with it', async () => {
    const server = templatesServer()
    const terms = {
      url: '/api/v1/email_attachment/emlatt_2/',
      filename: 'Terms.pdf',
      content_type: 'application/pdf',
      size: 2048,
    }
    const deck = { ...terms, url: '/api/v1/email_attachment/emlatt_3/', filename: 'Deck.pdf' }
    server.answers['GET /api/v1/email_template/'] = list([{ ...intro, attachments: [terms, deck] }])
    server.answers['PUT /api/v1/email_template/tmpl_intro/'] = { body: intro }
    renderScreen(EmailTemplatesPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'Edit Intro' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit “Intro”' })
    const files = within(dialog).getByRole('list', { name: 'Attachments' })
    expect(
      within(files)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([expect.stringContaining('Terms.pdf'), expect.stringContaining('Deck.pdf')])
    await user.click(within(files).getByRole('button', { name: 'Remove Terms.pdf' }))
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => {
      expect(server.bodiesOf('PUT /api/v1/email_template/tmpl_intro/')).toEqual([
        { name: 'Intro', subject: intro.subject, body: intro.body, is_shared: true, attachments: [deck] },
      ])
    })
  })

  it('deletes a template only after the confirmation', async () => {
    const server = templatesServer()
    server.answers['DELETE /api/v1/email_template/tmpl_intro/'] = () => {
      server.answers['GET /api/v1/email_template/'] = list([followUp])
      return { body: {} }
    }
    renderScreen(EmailTemplatesPage)
    const user = userEvent.setup()
    const row = (await screen.findByRole('rowheader', { name: 'Intro' })).closest('tr')
    if (row === null) throw new Error('no row for Intro')
    await user.click(within(row).getByRole('button', { name: 'Delete' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete the template “Intro”?' })
    expect(server.bodiesOf('DELETE /api/v1/email_template/tmpl_intro/')).toHaveLength(0)
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    await waitFor(() => {
      expect(screen.queryByRole('rowheader', { name: 'Intro' })).toBeNull()
    })
    expect(server.bodiesOf('DELETE /api/v1/email_template/tmpl_intro/')).toHaveLength(1)
  })

  it('tells a non-admin that settings are for admins', async () => {
    const server = templatesServer()
    server.answers['GET /auth/session'] = { body: { ...adminSession, role: 'user' } }
    renderScreen(EmailTemplatesPage)
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' })).toBeTruthy()
    expect(server.sent.map((r) => r.path)).not.toContain('/api/v1/email_template/')
  })
})
