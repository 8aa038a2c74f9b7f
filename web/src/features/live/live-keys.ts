import type { QueryFilters } from '@tanstack/react-query'
import type { LiveEvent } from '@leadline/shared/live-event'
import { authQueries } from '../auth/auth-queries'
import { leadQueries, setupQueries } from '../leads/lead-queries'
import { opportunityQueries } from '../opportunities/opportunity-queries'
import { phoneQueries } from '../phone/phone-queries'
import { taskQueries } from '../tasks/task-queries'
import { usersQueries } from '../settings/users-queries'
import { organizationQueries, phoneNumberQueries } from '../settings/organization-queries'
import { webhooksQueries } from '../settings/webhooks-queries'
import { emailAccountQueries } from '../email/email-account-queries'
import { emailQueries } from '../email/email-queries'

// Imports the query factories the first screens load anyway, and the Users and Webhooks screens': the live client loads after the
// first screen, outside its budget.

const under = (queryKey: readonly unknown[]): QueryFilters => ({ queryKey })

/** The lead's page (its details, nested contacts, opportunities and tasks, and its timeline) and the leads list. */
function leadScreens(leadId: string | null): QueryFilters[] {
  const list = under([...leadQueries.all(), 'list'])
  return leadId === null ? [list] : [under(leadQueries.detail(leadId).queryKey), list]
}

/**
 * Everything about opportunities (board columns, the list view, reports, side panels) but the columns of statuses
 * the opportunity was not in and the panels of other opportunities. Columns are keyed `['opportunities', 'column',
 * statusId, filters]`, panels `['opportunities', 'detail', id]`; without status ids, every column.
 */
function opportunityScreens(event: LiveEvent): QueryFilters {
  const statuses = [event.status_id, event.previous_status_id].filter((s) => typeof s === 'string')
  return {
    queryKey: opportunityQueries.all(),
    predicate: ({ queryKey: [, part, id] }) => {
      if (part === 'column') return statuses.length === 0 || statuses.some((status) => status === id)
      if (part === 'detail') return id === event.object_id
      return true
    },
  }
}

/**
 * The queries another user's change makes stale: what the live updates invalidate. Only queries on screen are
 * fetched again; the others are marked stale and fetched when next shown.
 */
export function staleQueriesOf(event: LiveEvent): QueryFilters[] {
  const [kind, subtype] = event.object_type.split('.')
  switch (kind) {
    case 'task':
      // The task lists and counts; the lead nests its open tasks and shows completions on its timeline.
      return event.lead_id === null
        ? [under(taskQueries.all())]
        : [under(taskQueries.all()), under(leadQueries.detail(event.lead_id).queryKey)]
    case 'opportunity':
      // Its lead's page lists it too.
      return event.lead_id === null
        ? [opportunityScreens(event)]
        : [opportunityScreens(event), under(leadQueries.detail(event.lead_id).queryKey)]
    case 'lead':
      // A merged lead's event names the lead it went into as its `lead_id`: both pages change.
      return event.lead_id === null || event.lead_id === event.object_id
        ? leadScreens(event.object_id)
        : [...leadScreens(event.object_id), under(leadQueries.detail(event.lead_id).queryKey)]
    case 'contact':
    case 'activity':
      return leadScreens(event.lead_id)
    case 'status':
      // Opportunity statuses are listed inside their pipelines.
      return [under(subtype === 'lead' ? setupQueries.statuses().queryKey : opportunityQueries.pipelines().queryKey)]
    case 'pipeline':
      return [under(opportunityQueries.pipelines().queryKey)]
    case 'custom_field':
      // A field added, changed, deleted or moved (a reorder updates each field it moves): the settings screen and
      // every form that shows that object type's fields.
      return subtype === 'lead' || subtype === 'contact' || subtype === 'opportunity'
        ? [under(setupQueries.customFields(subtype).queryKey)]
        : []
    case 'membership':
      // Admins' list of members, the pickers of teammates, and the session: the BFF already holds a new role of theirs.
      return [
        under(usersQueries.members().queryKey),
        under(setupQueries.members().queryKey),
        under(authQueries.session().queryKey),
      ]
    case 'outcome':
      // The call form's choices (and the Call outcomes screen), and the names calls in timelines show.
      return [under(phoneQueries.outcomes().queryKey)]
    case 'phone_number':
      // The Phone numbers screen and the numbers texts are sent from.
      return [under(phoneNumberQueries.all())]
    case 'organization':
      // Its name and currency (the Organization screen, the session's name), and the lead statuses' order it holds.
      return [
        under(organizationQueries.all()),
        under(authQueries.session().queryKey),
        under(setupQueries.statuses().queryKey),
      ]
    case 'email_account':
      // Settings → Email accounts, the profile's own accounts, and the composer's senders share one key.
      return [under(emailAccountQueries.all())]
    case 'email_template':
      // Settings → Email templates, the composer's templates and their previews.
      return [under(emailQueries.templates().queryKey)]
    case 'webhook':
      // The Webhooks screen's list, and the delivery log open on it.
      return [under(webhooksQueries.all())]
    default:
      return []
  }
}
