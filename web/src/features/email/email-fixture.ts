import { activityFixtureFields } from '../../lib/activity-fixture'
import type { EmailActivity } from './email-wire'

// Emails as the API answers them, for unit tests.

export function emailFixture(id: string, extra: Partial<EmailActivity> = {}): EmailActivity {
  return {
    id,
    _type: 'Email',
    ...activityFixtureFields,
    direction: 'outgoing',
    status: 'sent',
    thread_id: 'acti_thread1',
    subject: 'Proposal',
    body_text: 'Hello',
    body_html: '<p>Hello</p>',
    body_preview: 'Hello',
    body_text_quoted: [],
    body_html_quoted: [],
    sender: '"Casey Closer" <casey@journey.test>',
    to: ['"Ann Smith" <ann@example.com>'],
    cc: [],
    bcc: [],
    envelope: {
      from: [{ name: 'Casey Closer', email: 'casey@journey.test' }],
      to: [{ name: 'Ann Smith', email: 'ann@example.com' }],
      cc: [],
    },
    attachments: [],
    date_scheduled: null,
    date_sent: null,
    email_account_id: 'emailacct_1',
    template_id: null,
    template_name: null,
    in_reply_to_id: null,
    error_message: null,
    send_attempts: [],
    sender_check: null,
    ...extra,
  }
}
