import { QueryClient, type QueryKey } from '@tanstack/react-query'
import type { LiveEvent } from '@leadline/shared/live-event'
import { describe, expect, it } from 'vitest'
import { leadQueries, setupQueries } from '../leads/lead-queries'
import { filtersOf } from '../opportunities/board-search'
import { opportunityDetail } from '../opportunities/opportunity-mutations'
import { listsKey } from '../opportunities/opportunity-move'
import { opportunityQueries } from '../opportunities/opportunity-queries'
import { phoneQueries } from '../phone/phone-queries'
import { reportQueries } from '../reports/report-queries'
import { settingsQueries } from '../settings/settings-queries'
import { taskQueries } from '../tasks/task-queries'
import { usersQueries } from '../settings/users-queries'
import { organizationQueries, phoneNumberQueries } from '../settings/organization-queries'
import { webhooksQueries } from '../settings/webhooks-queries'
import { emailAccountQueries } from '../email/email-account-queries'
import { emailQueries } from '../email/email-queries'
import { staleQueriesOf } from './live-keys'

function event(fields: Partial<LiveEvent> & Pick<LiveEvent, 'object_type'>): LiveEvent {
  return {
    id: 'ev_1',
    object_id: 'obj_1',
    action: 'updated',
    lead_id: 'lead_1',
    user_id: 'user_2',
    date_created: '2026-03-01T12:00:00.000000+00:00',
    ...fields,
  }
}

const filters = filtersOf({})
const board = filtersOf({ owner: 'user_1', lead_query: 'acme' })

/** The queries of every screen, as the app keys them, with some data in each. */
const SCREENS: Record<string, QueryKey> = {
  inbox: taskQueries.list({ view: 'inbox', assignee: 'user_1' }).queryKey,
  inboxCount: taskQueries.inboxCount('user_1').queryKey,
  leadTasks: taskQueries.lead('lead_1').queryKey,
  otherLeadTasks: taskQueries.lead('lead_9').queryKey,
  lead: leadQueries.detail('lead_1').queryKey,
  leadTimeline: leadQueries.activities('lead_1').queryKey,
  leadNotes: leadQueries.activities('lead_1', 'notes').queryKey,
  otherLead: leadQueries.detail('lead_9').queryKey,
  leadsList: leadQueries.list('acme').queryKey,
  columnA: opportunityQueries.column('stat_a', filters).queryKey,
  columnAFiltered: opportunityQueries.column('stat_a', board).queryKey,
  columnB: opportunityQueries.column('stat_b', filters).queryKey,
  columnC: opportunityQueries.column('stat_c', filters).queryKey,
  opportunityList: [...listsKey, 'pipe_1', filters, undefined],
  opportunityPanel: opportunityDetail('oppo_1').queryKey,
  otherOpportunityPanel: opportunityDetail('oppo_9').queryKey,
  report: [...reportQueries.all(), 'groups', { by: 'user' }],
  pipelines: settingsQueries.pipelines().queryKey,
  leadStatuses: settingsQueries.leadStatuses().queryKey,
  leadFields: setupQueries.customFields('lead').queryKey,
  contactFields: setupQueries.customFields('contact').queryKey,
  opportunityFields: setupQueries.customFields('opportunity').queryKey,
  members: setupQueries.members().queryKey,
  outcomes: phoneQueries.outcomes().queryKey,
  session: ['session', 'current'],
  usersScreen: usersQueries.members().queryKey,
  phoneNumbersScreen: phoneNumberQueries.list().queryKey,
  internalNumbers: phoneQueries.internalNumbers().queryKey,
  organization: organizationQueries.detail('orga_1').queryKey,
  environment: organizationQueries.environment('orga_1').queryKey,
  webhooks: webhooksQueries.subscriptions().queryKey,
  senders: emailQueries.accounts().queryKey,
  emailAccountsScreen: emailAccountQueries.list().queryKey,
  templates: emailQueries.templates().queryKey,
  templatePreview: emailQueries.rendered('tmpl_1', 'lead_1', 'cont_1').queryKey,
  webhookLog: webhooksQueries.deliveries('whsub_1').queryKey,
}

/** Which of the screens' queries an event makes stale, by their names above. */
function staleScreens(live: LiveEvent): string[] {
  const queryClient = new QueryClient()
  for (const key of Object.values(SCREENS)) queryClient.setQueryData(key, { data: [] })
  for (const filters of staleQueriesOf(live)) {
    for (const query of queryClient.getQueryCache().findAll(filters)) query.invalidate()
  }
  return Object.entries(SCREENS)
    .filter(([, key]) => queryClient.getQueryState(key)?.isInvalidated === true)
    .map(([name]) => name)
    .sort()
}

describe('what a teammate’s change makes stale', () => {
  it('a task: every task list and count, and its lead’s page', () => {
    expect(staleScreens(event({ object_type: 'task.lead', object_id: 'task_1', action: 'completed' }))).toEqual(
      ['inbox', 'inboxCount', 'lead', 'leadNotes', 'leadTasks', 'leadTimeline', 'otherLeadTasks'].sort(),
    )
    expect(staleScreens(event({ object_type: 'task.opportunity_due', lead_id: null }))).toEqual(
      ['inbox', 'inboxCount', 'leadTasks', 'otherLeadTasks'].sort(),
    )
  })

  it('an opportunity moved: the columns it left and entered under every filter, lists, reports, its panel and lead', () => {
    const moved = event({
      object_type: 'opportunity',
      object_id: 'oppo_1',
      status_id: 'stat_b',
      previous_status_id: 'stat_a',
      pipeline_id: 'pipe_1',
    })
    expect(staleScreens(moved)).toEqual(
      [
        'columnA',
        'columnAFiltered',
        'columnB',
        'lead',
        'leadNotes',
        'leadTimeline',
        'opportunityList',
        'opportunityPanel',
        'report',
      ].sort(),
    )
    // Edited in place: its own column only.
    expect(staleScreens({ ...moved, previous_status_id: undefined })).not.toContain('columnA')
    expect(staleScreens({ ...moved, previous_status_id: undefined })).toContain('columnB')
    // An event that does not name the statuses: every column.
    expect(staleScreens({ ...moved, status_id: undefined, previous_status_id: undefined })).toEqual(
      expect.arrayContaining(['columnA', 'columnB', 'columnC']),
    )
  })

  it('a lead, a contact or an activity: that lead’s page and the leads list', () => {
    const leadPage = ['lead', 'leadNotes', 'leadTimeline', 'leadsList'].sort()
    expect(staleScreens(event({ object_type: 'lead', object_id: 'lead_1' }))).toEqual(leadPage)
    expect(staleScreens(event({ object_type: 'contact', object_id: 'cont_1' }))).toEqual(leadPage)
    expect(staleScreens(event({ object_type: 'activity.note', object_id: 'acti_1', action: 'created' }))).toEqual(
      leadPage,
    )
    expect(
      staleScreens(event({ object_type: 'lead', object_id: 'lead_9', lead_id: 'lead_9', action: 'deleted' })),
    ).toEqual(['leadsList', 'otherLead'].sort())
    // Merged into lead_1: the page of the lead that went and of the one it went into.
    expect(
      staleScreens(event({ object_type: 'lead', object_id: 'lead_9', lead_id: 'lead_1', action: 'merged' })),
    ).toEqual([...leadPage, 'otherLead'].sort())
  })

  it('an outcome: the outcomes calls are logged with and shown by', () => {
    expect(staleScreens(event({ object_type: 'outcome', object_id: 'outcome_1', lead_id: null }))).toEqual(['outcomes'])
  })

  it('statuses, pipelines and custom fields: their settings', () => {
    expect(staleScreens(event({ object_type: 'status.lead', lead_id: null }))).toEqual(['leadStatuses'])
    expect(staleScreens(event({ object_type: 'status.opportunity', lead_id: null }))).toEqual(['pipelines'])
    expect(staleScreens(event({ object_type: 'pipeline', lead_id: null }))).toEqual(['pipelines'])
    expect(staleScreens(event({ object_type: 'custom_field.lead', lead_id: null }))).toEqual(['leadFields'])
    expect(staleScreens(event({ object_type: 'custom_field.contact', lead_id: null }))).toEqual(['contactFields'])
    expect(staleScreens(event({ object_type: 'custom_field.opportunity', lead_id: null }))).toEqual([
      'opportunityFields',
    ])
  })

  it('custom fields reordered: each moved field’s update refreshes its object type’s fields only', () => {
    const moved = event({ object_type: 'custom_field.lead', object_id: 'cf_2', action: 'updated', lead_id: null })
    expect(staleScreens(moved)).toEqual(['leadFields'])
  })

  it('a membership (a role changed, someone deactivated): the members, the pickers of teammates and the session', () => {
    const changed = event({ object_type: 'membership', lead_id: null, member_user_id: 'user_2', member_role: 'admin' })
    expect(staleScreens(changed)).toEqual(['members', 'session', 'usersScreen'])
  })

  it('a phone number: the Phone numbers screen and the numbers texts are sent from', () => {
    expect(staleScreens(event({ object_type: 'phone_number', object_id: 'phon_1', lead_id: null }))).toEqual([
      'internalNumbers',
      'phoneNumbersScreen',
    ])
  })

  it('the organization (renamed, its lead statuses reordered): the Organization screen, the session and the lead statuses', () => {
    expect(staleScreens(event({ object_type: 'organization', object_id: 'orga_1', lead_id: null }))).toEqual([
      'environment',
      'leadStatuses',
      'organization',
      'session',
    ])
  })

  it('a webhook subscription (added, paused, deleted): the Webhooks screen and its delivery logs', () => {
    expect(staleScreens(event({ object_type: 'webhook', object_id: 'whsub_1', lead_id: null }))).toEqual([
      'webhookLog',
      'webhooks',
    ])
  })

  it('an email account: the Email accounts screen, the profile’s accounts and the composer’s senders', () => {
    expect(staleScreens(event({ object_type: 'email_account', object_id: 'emailacct_1', lead_id: null }))).toEqual([
      'emailAccountsScreen',
      'senders',
    ])
  })

  it('an email template: the Email templates screen, the composer’s templates and their previews', () => {
    expect(staleScreens(event({ object_type: 'email_template', object_id: 'tmpl_1', lead_id: null }))).toEqual([
      'templatePreview',
      'templates',
    ])
  })

  it('something it does not know: nothing', () => {
    expect(staleScreens(event({ object_type: 'something_new' }))).toEqual([])
  })
})
