import { useQuery } from '@tanstack/react-query'
import type { EmailTemplate, RenderedEmailTemplate } from '@leadline/shared/email-template-schema'
import { useState } from 'react'
import { Button } from '../../components/ui/button'
import { SelectField } from '../../components/ui/select-field'
import { emailQueries } from './email-queries'
import { RenderedTemplatePreview } from './rendered-template'

export interface TemplatePickerProps {
  leadId: string
  /** The contact the email is with, whose details fill the template; undefined when the lead has none. */
  contactId: string | undefined
  /** `files`: the template's attachments, which the draft takes too. */
  onUse: (templateId: string, rendered: RenderedEmailTemplate, files: EmailTemplate['attachments']) => void
}

/** A template (shared or the user's own), previewed for the email's contact before it fills the subject and message. */
export function TemplatePicker({ leadId, contactId, onUse }: TemplatePickerProps) {
  const templates = useQuery(emailQueries.templates())
  const [chosen, setChosen] = useState('')
  const rendered = useQuery({
    ...emailQueries.rendered(chosen, leadId, contactId ?? ''),
    enabled: chosen !== '' && contactId !== undefined,
  })
  const options = (templates.data ?? []).map((t) => ({
    value: t.id,
    label: t.is_shared ? `${t.name} (shared)` : t.name,
  }))
  return (
    <div className="flex flex-col gap-2">
      <SelectField
        label="Template"
        value={chosen}
        options={options}
        emptyLabel={templates.isPending ? 'Loading templates…' : options.length === 0 ? 'No templates yet' : 'None'}
        isDisabled={options.length === 0}
        onChange={setChosen}
        error={templates.isError ? 'The templates could not be loaded.' : undefined}
      />
      {chosen === '' ? null : (
        <section aria-label="Template preview" className="rounded-md border border-slate-200 bg-white p-3 text-sm">
          {contactId === undefined ? (
            <p className="text-slate-700">Add a contact to this lead to preview a template for them.</p>
          ) : (
            <RenderedTemplatePreview query={rendered}>
              {(filled) => (
                <div className="mt-2 flex justify-end">
                  <Button
                    size="sm"
                    variant="primary"
                    onPress={() => {
                      onUse(chosen, filled, templates.data?.find((t) => t.id === chosen)?.attachments ?? [])
                      setChosen('')
                    }}
                  >
                    Use template
                  </Button>
                </div>
              )}
            </RenderedTemplatePreview>
          )}
        </section>
      )}
    </div>
  )
}
