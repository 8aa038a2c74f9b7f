import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useState, type ComponentType, type SubmitEvent } from 'react'
import { VALUE_PERIODS, type ValuePeriod } from '@leadline/shared/money'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { isApiError } from '../../lib/api'
import { bindFields } from '../../lib/form-fields'
import { authQueries } from '../auth/auth-queries'
import { CustomFieldsFieldset } from '../leads/custom-field-editor'
import { customDraftOf, customValueFromDraft, customValuesOf } from '../leads/custom-values'
import { leadQueries, setupQueries } from '../leads/lead-queries'
import { pipelineOf } from './board-search'
import { bodyOf, draftOf, type OpportunityBody, type OpportunityDraft } from './opportunity-form-draft'
import type { LeadComboBoxProps } from './opportunity-form-lead'
import { useSaveOpportunity } from './opportunity-mutations'
import { opportunityQueries } from './opportunity-queries'

// One form creates and edits opportunities (board, side panel, lead page); it loads only when one of them opens it.

const COMMON_CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'CHF', 'JPY']

const periodLabels: Record<ValuePeriod, string> = { one_time: 'One-time', monthly: 'Monthly', annual: 'Annual' }
const periodOptions = VALUE_PERIODS.map((p) => ({ value: p, label: periodLabels[p] }))

function isValuePeriod(value: string): value is ValuePeriod {
  return (VALUE_PERIODS as readonly string[]).includes(value)
}

export interface OpportunityFormProps {
  /** The opportunity edited; without it the form adds one. */
  opportunity?: Opportunity | undefined
  /** The lead a new opportunity belongs to; without it the form asks for one. */
  leadId?: string | undefined
  /** The pipeline a new opportunity starts in (the board's), else the first. */
  pipelineId?: string | undefined
  /**
   * Chooses the lead when none is given. The board passes its combobox in: React Aria's collection code then stays
   * in the board's chunk, and sharing it with this lazily loaded form would add a chunk to every first visit.
   */
  LeadPicker?: ComponentType<LeadComboBoxProps> | undefined
  onDone: () => void
}

export function OpportunityForm({ opportunity, leadId, pipelineId, LeadPicker, onDone }: OpportunityFormProps) {
  const { data: session } = useSuspenseQuery(authQueries.session())
  const { data: organization } = useSuspenseQuery(opportunityQueries.organization(session.organization.id))
  const { data: pipelines } = useSuspenseQuery(opportunityQueries.pipelines())
  const [initial] = useState(() =>
    draftOf(opportunity, {
      leadId: leadId ?? '',
      pipeline: pipelineOf(pipelines, pipelineId),
      currency: organization.currency,
      userId: session.user.id,
    }),
  )
  const [draft, setDraft] = useState(initial)
  const [formErrors, setFormErrors] = useState<Record<string, string>>({})
  const lead = useQuery({ ...leadQueries.detail(draft.lead_id), enabled: draft.lead_id !== '' })
  // In the organization's order; a field added or moved in Settings shows at once (same query).
  const customFields = useQuery(setupQueries.customFields('opportunity'))
  const fields = (customFields.data ?? []).filter((f) => f.type !== 'hidden')
  const storedCustom = (id: string) => {
    const f = fields.find((x) => x.id === id)
    return opportunity === undefined || f === undefined ? '' : customDraftOf(f, customValuesOf(opportunity, f))
  }
  const [custom, setCustom] = useState<Record<string, string>>({})
  const save = useSaveOpportunity()
  const serverErrors = isApiError(save.error) ? save.error.fieldErrors : {}
  const errors = { ...serverErrors, ...formErrors }
  const generalError = save.error !== null && Object.keys(serverErrors).length === 0 ? save.error.message : undefined

  const set = <K extends keyof OpportunityDraft>(key: K, value: OpportunityDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }))
  }
  const field = bindFields(draft, setDraft, errors)
  const statuses = pipelines.find((p) => p.id === draft.pipeline_id)?.statuses ?? []
  const currencies = [...new Set([organization.currency, draft.value_currency, ...COMMON_CURRENCIES])]
  const members = organization.memberships.map((m) => ({
    value: m.user_id,
    label: m.user_full_name === '' ? m.user_email : m.user_full_name,
  }))
  const contacts = (lead.data?.contacts ?? []).map((c) => ({
    value: c.id,
    label: c.display_name === '' ? 'Unnamed contact' : c.display_name,
  }))

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const result = bodyOf(draft, opportunity === undefined ? undefined : initial)
    if (!result.ok) {
      setFormErrors(result.errors)
      return
    }
    setFormErrors({})
    const body: OpportunityBody = { ...result.body }
    for (const f of fields) {
      const text = custom[f.id]
      if (text !== undefined && text !== storedCustom(f.id)) body[`custom.${f.id}`] = customValueFromDraft(f, text)
    }
    if (opportunity !== undefined && Object.keys(body).length === 0) {
      onDone()
      return
    }
    save.mutate({ id: opportunity?.id, body }, { onSuccess: onDone })
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      {LeadPicker !== undefined && leadId === undefined && opportunity === undefined ? (
        <LeadPicker
          leadId={draft.lead_id}
          onChange={(id) => {
            setDraft((d) => ({ ...d, lead_id: id, contact_id: '' }))
          }}
          error={errors.lead ?? errors.lead_id}
        />
      ) : null}
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <SelectField
          label="Pipeline"
          value={draft.pipeline_id}
          options={pipelines.map((p) => ({ value: p.id, label: p.name }))}
          onChange={(id) => {
            const first = pipelines.find((p) => p.id === id)?.statuses[0]?.id ?? ''
            setDraft((d) => ({ ...d, pipeline_id: id, status_id: first }))
          }}
          error={errors.pipeline_id}
        />
        <SelectField
          label="Status"
          {...field('status_id')}
          options={statuses.map((s) => ({ value: s.id, label: s.label }))}
          error={errors.status_id ?? errors.status}
        />
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <TextField
          label="Value"
          {...field('value')}
          inputMode="decimal"
          description={`In ${draft.value_currency}, e.g. 1,500.50`}
          autoFocus={leadId !== undefined || opportunity !== undefined}
        />
        <SelectField
          label="Period"
          value={draft.value_period}
          options={periodOptions}
          onChange={(value) => {
            if (isValuePeriod(value)) set('value_period', value)
          }}
          error={errors.value_period}
        />
        <SelectField
          label="Currency"
          {...field('value_currency')}
          options={currencies.map((c) => ({ value: c, label: c }))}
        />
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <TextField label="Confidence (%)" {...field('confidence')} inputMode="numeric" description="0 to 100" />
        <TextField type="date" label="Close date" {...field('date_won')} description="Expected, or when it was won" />
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <SelectField
          label="Owner"
          {...field('user_id')}
          options={members}
          emptyLabel={draft.user_id === '' ? 'No owner' : undefined}
        />
        <SelectField label="Contact" {...field('contact_id')} options={contacts} emptyLabel="No contact" />
      </div>
      <TextField label="Note" multiline {...field('note')} />
      <CustomFieldsFieldset
        fields={fields}
        draftOf={(f) => custom[f.id] ?? storedCustom(f.id)}
        setDraft={(f, text) => {
          setCustom((c) => ({ ...c, [f.id]: text }))
        }}
        errors={errors}
        referencesOf={(f) => (f.type === 'user' ? members : f.type === 'contact' ? contacts : [])}
      />
      <FormActions
        error={generalError}
        submitLabel={opportunity === undefined ? 'Add opportunity' : 'Save opportunity'}
        isPending={save.isPending}
        onCancel={onDone}
      />
    </form>
  )
}
