import type { FastifyInstance } from 'fastify'
import { basicAuth, call, type TestOrg } from './test-app.js'

/**
 * One object of every kind in an organization, made through the API as its users would, so the security suites
 * can put an object of another organization (or a colleague's) wherever a request names one.
 */
export interface EveryObject {
  org: TestOrg
  /** By collection path (`/lead/`, `/activity/note/`, `/status/lead/`): the id a `{id}` under it names. */
  byCollection: Record<string, string>
  /** By kind of reference a request field makes (`lead`, `user`, `opportunity_status`, …): the value to send. */
  byReference: Record<string, string>
  /** By name of a path parameter other than `{id}` (`delivery_id`): one of the object's under the `{id}`. */
  byPathParam: Record<string, string>
  /** A colleague's (the admin's) objects the member must not act on: an email draft, a text draft, an export, an import, an unshared Smart View. */
  colleague: Record<string, string>
  /** The pipeline's statuses, the one `byReference.opportunity_status` names first. */
  pipelineStatuses: string[]
  /** The contact's phone and address. */
  contactPhone: string
  contactAddress: string
  /** Every id of the organization's objects, to look for in answers given to another organization. */
  allIds: string[]
}

/** In every name and text of the objects, so an answer that shows one can be told at a glance. */
export function markerOf(org: TestOrg): string {
  return `MARK${org.id.slice(-12)}`
}

interface Made {
  id: string
  [key: string]: unknown
}

/** What the API answered to a request that must succeed. */
export async function made(
  app: FastifyInstance,
  key: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
  query?: Record<string, string>,
): Promise<Made> {
  const res = await call(app, key, method, path, {
    ...(body === undefined ? {} : { body }),
    ...(query === undefined ? {} : { query }),
  })
  if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${res.body}`)
  return res.json<Made>()
}

async function firstOf(app: FastifyInstance, key: string, path: string, query: Record<string, string>) {
  const list = await made(app, key, 'GET', path, undefined, query)
  const data = list.data as Made[] | undefined
  const first = data?.[0]
  if (first === undefined) throw new Error(`GET ${path} with ${JSON.stringify(query)} listed nothing`)
  return first
}

/** `n` distinguishes the organizations' phone numbers and addresses (each is unique within one organization). */
export async function createEveryObject(app: FastifyInstance, org: TestOrg, n: number): Promise<EveryObject> {
  const admin = org.admin.key
  const member = org.member.key
  const mark = markerOf(org)
  const phone = `+1415555${String(n).padStart(2, '0')}10`
  const colleaguePhone = `+1415555${String(n).padStart(2, '0')}20`
  const domain = `org${n}.example`

  const leadStatus = await made(app, admin, 'POST', '/status/lead/', { label: `${mark} Qualified` })
  const pipeline = await made(app, admin, 'POST', '/pipeline/', {
    name: `${mark} Sales`,
    statuses: [{ label: `${mark} Open` }, { label: `${mark} Won`, type: 'won' }],
  })
  const [openStatus, wonStatus] = pipeline.statuses as Made[]
  if (openStatus === undefined || wonStatus === undefined) throw new Error('the pipeline has no statuses')
  const spareStatus = await made(app, admin, 'POST', '/status/opportunity/', {
    label: `${mark} Lost`,
    type: 'lost',
    pipeline_id: pipeline.id,
  })
  const customFields: Record<string, Made> = {}
  for (const kind of ['lead', 'contact', 'opportunity']) {
    customFields[kind] = await made(app, admin, 'POST', `/custom_field/${kind}/`, {
      name: `${mark} ${kind}`,
      type: 'text',
    })
  }
  const outcome = await made(app, admin, 'POST', '/outcome/', { name: `${mark} Interested` })
  const invitation = await made(app, admin, 'POST', '/invitation/', { email: `invitee@${domain}` })
  const phoneNumber = await made(app, admin, 'POST', '/phone_number/', { number: phone, type: 'internal' })
  await made(app, admin, 'POST', '/phone_number/', {
    number: colleaguePhone,
    type: 'internal',
    user_id: org.admin.id,
  })
  const webhook = await made(app, admin, 'POST', '/webhook/', {
    url: `https://hooks.${domain}/leadline`,
    events: [{ object_type: 'lead', action: 'created' }],
  })
  const webhookDelivery = await made(app, admin, 'POST', `/webhook/${webhook.id}/test/`, {})

  const lead = await made(app, member, 'POST', '/lead/', {
    name: `${mark} Lead`,
    description: mark,
    contacts: [
      {
        name: `${mark} Contact`,
        emails: [{ email: `contact@client${n}.example`, type: 'office' }],
        phones: [{ phone: `+1415555${String(n).padStart(2, '0')}30`, type: 'mobile' }],
      },
    ],
  })
  const contact = (lead.contacts as Made[])[0]
  if (contact === undefined) throw new Error('the lead has no contact')
  await made(app, member, 'PUT', `/lead/${lead.id}/`, { status_id: leadStatus.id })
  const opportunity = await made(app, member, 'POST', '/opportunity/', {
    lead_id: lead.id,
    status_id: openStatus.id,
    note: mark,
  })
  await made(app, member, 'PUT', `/opportunity/${opportunity.id}/`, { status_id: spareStatus.id })
  await made(app, member, 'PUT', `/opportunity/${opportunity.id}/`, { status_id: openStatus.id })
  const task = await made(app, member, 'POST', '/task/', { lead_id: lead.id, text: mark, date: '2026-03-02' })
  const doneTask = await made(app, member, 'POST', '/task/', { lead_id: lead.id, text: `${mark} done` })
  await made(app, member, 'PUT', `/task/${doneTask.id}/`, { is_complete: true })
  const note = await made(app, member, 'POST', '/activity/note/', { lead_id: lead.id, note: mark })
  const callActivity = await made(app, member, 'POST', '/activity/call/', {
    lead_id: lead.id,
    note: mark,
    outcome_id: outcome.id,
  })
  const sms = await made(app, member, 'POST', '/activity/sms/', {
    lead_id: lead.id,
    status: 'draft',
    text: mark,
    local_phone: phone,
    remote_phone: `+1415555${String(n).padStart(2, '0')}30`,
  })
  const colleagueSms = await made(app, admin, 'POST', '/activity/sms/', {
    lead_id: lead.id,
    status: 'draft',
    text: `${mark} the admin's`,
    local_phone: colleaguePhone,
    remote_phone: `+1415555${String(n).padStart(2, '0')}30`,
  })
  // Made by the admin, whose choice of an account's own address is trusted (decision 0038): it sends at once.
  const account = await made(app, admin, 'POST', '/email_account/', {
    user_id: org.member.id,
    email: `rep@${domain}`,
    smtp: { host: `smtp.${domain}`, port: 465 },
  })
  const colleagueAccount = await made(app, admin, 'POST', '/email_account/', {
    email: `admin@${domain}`,
    smtp: { host: `smtp.${domain}`, port: 465 },
  })
  const template = await made(app, member, 'POST', '/email_template/', {
    name: `${mark} Intro`,
    subject: `${mark} {{ contact.first_name }}`,
    body: `<p>${mark}</p>`,
  })
  const upload = await app.inject({
    method: 'POST',
    url: `/api/v1/email_attachment/?filename=${mark}.txt`,
    headers: { authorization: basicAuth(member), 'content-type': 'text/plain' },
    payload: mark,
  })
  if (upload.statusCode !== 200) throw new Error(`upload answered ${upload.statusCode}: ${upload.body}`)
  const attachment = upload.json<Made>()
  const email = await made(app, member, 'POST', '/activity/email/', {
    lead_id: lead.id,
    contact_id: contact.id,
    status: 'draft',
    subject: mark,
    body_text: mark,
    to: [`contact@client${n}.example`],
  })
  const colleagueEmail = await made(app, admin, 'POST', '/activity/email/', {
    lead_id: lead.id,
    status: 'draft',
    subject: `${mark} the admin's`,
    body_text: mark,
    to: [`contact@client${n}.example`],
  })
  const leadExport = await made(app, member, 'POST', '/export/lead/', { format: 'csv', type: 'leads', query: mark })
  const opportunityExport = await made(app, member, 'POST', '/export/opportunity/', {
    format: 'json',
    params: { lead_id: lead.id },
  })
  const colleagueExport = await made(app, admin, 'POST', '/export/lead/', { format: 'json', type: 'leads' })
  const uploadCsv = async (key: string) => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/import/?filename=${mark}.csv`,
      headers: { authorization: basicAuth(key), 'content-type': 'text/csv' },
      payload: `Company,Email\n${mark},contact@client${n}.example\n`,
    })
    if (res.statusCode !== 201) throw new Error(`import upload answered ${res.statusCode}: ${res.body}`)
    return res.json<Made>()
  }
  const view = await made(app, member, 'POST', '/saved_search/', { name: `${mark} view`, query: mark })
  // The admin's own view, unshared: not the member's to read, change or delete.
  const colleagueView = await made(app, admin, 'POST', '/saved_search/', { name: `${mark} admin's view` })
  const csvImport = await uploadCsv(member)
  // Bulk actions no worker runs here: they stay `created`, changing no lead.
  const bulkEdit = await made(app, member, 'POST', '/bulk_action/edit/', {
    type: 'set_lead_status',
    lead_status_id: leadStatus.id,
    query: mark,
  })
  const bulkDelete = await made(app, member, 'POST', '/bulk_action/delete/', { query: mark })
  // The admin's own bulk edit: not the member's to read, pause or undo.
  const colleagueBulkEdit = await made(app, admin, 'POST', '/bulk_action/edit/', {
    type: 'set_lead_status',
    lead_status_id: leadStatus.id,
    query: mark,
  })
  const colleagueImport = await uploadCsv(admin)
  const query = { lead_id: lead.id }
  const created = await firstOf(app, member, '/activity/created/', query)
  const leadChange = await firstOf(app, member, '/activity/status_change/lead/', query)
  const opportunityChange = await firstOf(app, member, '/activity/status_change/opportunity/', query)
  const completed = await firstOf(app, member, '/activity/task_completed/', query)
  const thread = await firstOf(app, member, '/activity/emailthread/', query)
  const event = await firstOf(app, admin, '/event/', { lead_id: lead.id })

  // The member's own session: session routes act on the caller's own sessions only.
  const session = await call(app, member, 'POST', '/auth/session/', { body: { description: mark } })

  const byCollection: Record<string, string> = {
    '/auth/session/': session.json<{ api_key_id: string }>().api_key_id,
    '/membership/': org.member.membershipId,
    '/api_key/': org.member.keyId,
    '/invitation/': invitation.id,
    '/user/': org.admin.id,
    '/organization/': org.id,
    '/status/lead/': leadStatus.id,
    '/status/opportunity/': spareStatus.id,
    '/pipeline/': pipeline.id,
    '/phone_number/': phoneNumber.id,
    '/lead/': lead.id,
    '/contact/': contact.id,
    '/opportunity/': opportunity.id,
    '/task/': task.id,
    '/activity/created/': created.id,
    '/activity/status_change/lead/': leadChange.id,
    '/activity/status_change/opportunity/': opportunityChange.id,
    '/activity/note/': note.id,
    '/activity/task_completed/': completed.id,
    '/custom_field/lead/': customFields.lead?.id ?? '',
    '/custom_field/contact/': customFields.contact?.id ?? '',
    '/custom_field/opportunity/': customFields.opportunity?.id ?? '',
    '/event/': event.id,
    '/webhook/': webhook.id,
    '/activity/call/': callActivity.id,
    '/outcome/': outcome.id,
    '/activity/sms/': sms.id,
    '/email_template/': template.id,
    '/email_account/': account.id,
    '/activity/email/': email.id,
    '/activity/emailthread/': thread.id,
    '/email_attachment/': attachment.id,
    '/export/': leadExport.id,
    '/export/lead/': leadExport.id,
    '/export/opportunity/': opportunityExport.id,
    '/import/': csvImport.id,
    '/saved_search/': view.id,
    '/bulk_action/edit/': bulkEdit.id,
    '/bulk_action/delete/': bulkDelete.id,
  }
  const byReference: Record<string, string> = {
    lead: lead.id,
    contact: contact.id,
    opportunity: opportunity.id,
    task: task.id,
    user: org.member.id,
    membership: org.member.membershipId,
    organization: org.id,
    lead_status: leadStatus.id,
    opportunity_status: spareStatus.id,
    pipeline: pipeline.id,
    custom_field_lead: customFields.lead?.id ?? '',
    custom_field_contact: customFields.contact?.id ?? '',
    custom_field_opportunity: customFields.opportunity?.id ?? '',
    outcome: outcome.id,
    template: template.id,
    email: email.id,
    event_object: lead.id,
    request: String(event.request_id),
    attachment_url: `/api/v1/email_attachment/${attachment.id}/`,
    phone: phone,
    email_address: `rep@${domain}`,
  }
  const byPathParam: Record<string, string> = { delivery_id: webhookDelivery.id }
  const colleague = {
    email: colleagueEmail.id,
    sms: colleagueSms.id,
    email_account: colleagueAccount.id,
    export: colleagueExport.id,
    import: colleagueImport.id,
    saved_search: colleagueView.id,
    bulk_edit: colleagueBulkEdit.id,
    phone: colleaguePhone,
    email_address: `admin@${domain}`,
  }
  const allIds = [
    ...Object.values(byCollection),
    ...Object.values(byPathParam),
    ...[openStatus.id, wonStatus.id, doneTask.id, colleagueSms.id, colleagueEmail.id, colleagueAccount.id],
    colleagueExport.id,
    colleagueImport.id,
    colleagueView.id,
    colleagueBulkEdit.id,
    org.member.id,
    org.member.membershipId,
    org.admin.membershipId,
  ]
  return {
    org,
    byCollection,
    byReference,
    byPathParam,
    colleague,
    pipelineStatuses: [spareStatus.id, openStatus.id, wonStatus.id],
    contactPhone: `+1415555${String(n).padStart(2, '0')}30`,
    contactAddress: `contact@client${n}.example`,
    allIds,
  }
}
