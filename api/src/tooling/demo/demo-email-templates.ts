import type { Db } from '../../platform/data/database.js'
import { insertTemplate, type TemplateFields } from '../../email/templates/email-template-repo.js'

const greeting = '<p>Hi {{ contact.first_name | default: "there" }},</p>'

/** The demo's shared email templates, so the lead page's composer has some to pick. */
export const DEMO_EMAIL_TEMPLATES: readonly TemplateFields[] = [
  {
    name: 'Intro',
    subject: 'Quick introduction from {{ organization.name }}',
    body:
      greeting +
      '<p>I’m {{ user.first_name }} from {{ organization.name }}. We help teams like {{ lead.display_name }} keep ' +
      'every conversation with their customers in one place, so nothing falls through the cracks.</p>' +
      '<p>Would you be open to a 20-minute call next week to see whether it fits?</p>' +
      '<p>Best,<br>{{ user.full_name }}</p>',
    is_shared: true,
    is_archived: false,
    attachments: [],
  },
  {
    name: 'Follow-up',
    subject: 'Following up, {{ contact.first_name | default: "there" }}',
    body:
      greeting +
      '<p>I wanted to follow up on my last email in case it got buried. Is improving how ' +
      '{{ lead.display_name }} tracks its sales pipeline still a priority this quarter?</p>' +
      '<p>If now isn’t the right time, just let me know and I’ll check back later.</p>' +
      '<p>Thanks,<br>{{ user.first_name }}</p>',
    is_shared: true,
    is_archived: false,
    attachments: [],
  },
  {
    name: 'Meeting recap',
    subject: 'Recap: {{ lead.display_name }} and {{ organization.name }}',
    body:
      greeting +
      '<p>Thanks for your time today. A quick recap of what we covered:</p>' +
      '<ul><li>Where {{ lead.display_name }} is today and what you want to change</li>' +
      '<li>How {{ organization.name }} could help</li>' +
      '<li>Next steps, and who else should be involved</li></ul>' +
      '<p>I’ll send the proposal over by the end of the week. Reply here if I missed anything.</p>' +
      '<p>Best,<br>{{ user.full_name }}<br>{{ user.email }}</p>',
    is_shared: true,
    is_archived: false,
    attachments: [],
  },
]

/** Stores the demo's templates in the organization, by `change.userId`. */
export async function setUpDemoEmailTemplates(
  db: Db,
  organizationId: string,
  change: { userId: string; now: string },
): Promise<void> {
  for (const template of DEMO_EMAIL_TEMPLATES) await insertTemplate(db, { ...template, organizationId, ...change })
}
