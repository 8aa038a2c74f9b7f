import { lazy, Suspense } from 'react'
import { useQuery } from '@tanstack/react-query'
import type { Lead } from '@leadline/shared/lead-schema'
import { ExternalLink } from '../../components/ui/external-link'
import { InlineEdit } from '../../components/ui/inline-edit'
import { Panel } from '../../components/ui/panel'
import { saveErrorMessage } from '../../lib/api'
import { CustomValueDisplay, useReferenceOptions } from './custom-field-input'
import { customDraftOf, customValueFromDraft, customValuesOf } from './custom-values'
import { setupQueries, useUpdateLead, type LeadBody } from './lead-queries'

// Loaded when a custom field is edited: the page's first visit carries only how values show.
const CustomFieldEditor = lazy(() => import('./custom-field-editor').then((m) => ({ default: m.CustomFieldEditor })))

function useSaveField(leadId: string) {
  const updateLead = useUpdateLead(leadId)
  return (body: LeadBody, field: string) =>
    updateLead.mutateAsync(body).then(
      () => undefined,
      (error: unknown) => saveErrorMessage(error, field),
    )
}

const empty = <span className="text-slate-400">—</span>

/** A text trimmed, or null when blank: what a draft saves. */
function text(value: string | null): string | null {
  const trimmed = value?.trim() ?? ''
  return trimmed === '' ? null : trimmed
}

/** A stored text as it shows: blank (Close stores `""` for a lead made without a description) shows as null does. */
function shown(value: string | null): string | null {
  return text(value) === null ? null : value
}

export function LeadDetails({ lead }: { lead: Lead }) {
  const save = useSaveField(lead.id)
  const [name, url, description] = [shown(lead.name), shown(lead.url), shown(lead.description)]
  return (
    <Panel title="Details">
      <div className="flex flex-col divide-y divide-slate-100">
        <InlineEdit
          label="Name"
          value={lead.name ?? ''}
          display={name ?? empty}
          onSave={(draft) => save({ name: text(draft) }, 'name')}
        />
        <InlineEdit
          label="URL"
          type="url"
          value={lead.url ?? ''}
          display={url === null ? empty : <ExternalLink url={url} />}
          onSave={(draft) => save({ url: text(draft) }, 'url')}
        />
        <InlineEdit
          label="Description"
          multiline
          value={lead.description ?? ''}
          display={description === null ? empty : <span className="whitespace-pre-wrap">{description}</span>}
          onSave={(draft) => save({ description: text(draft) }, 'description')}
        />
      </div>
    </Panel>
  )
}

export function LeadCustomFields({ lead }: { lead: Lead }) {
  const fields = useQuery(setupQueries.customFields('lead'))
  const save = useSaveField(lead.id)
  const visible = (fields.data ?? []).filter((f) => f.type !== 'hidden')
  const referencesOf = useReferenceOptions(lead, visible)
  if (visible.length === 0) return null
  return (
    <Panel title="Custom fields">
      <div className="flex flex-col divide-y divide-slate-100">
        {visible.map((field) => {
          const values = customValuesOf(lead, field)
          const key = `custom.${field.id}`
          return (
            <InlineEdit
              key={field.id}
              label={field.name}
              value={customDraftOf(field, values)}
              display={<CustomValueDisplay field={field} values={values} references={referencesOf(field)} />}
              onSave={(draft) => save({ [key]: customValueFromDraft(field, draft) }, key)}
              renderEditor={(props) => (
                <Suspense fallback={<p className="text-sm text-slate-500">Loading…</p>}>
                  <CustomFieldEditor {...props} field={field} references={referencesOf(field)} />
                </Suspense>
              )}
            />
          )
        })}
      </div>
    </Panel>
  )
}
