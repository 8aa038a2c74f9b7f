import { useState, type SubmitEvent } from 'react'
import type { ExportView } from '@leadline/shared/export-schema'
import { Button } from '../../components/ui/button'
import { CheckboxField } from '../../components/ui/checkbox-field'
import { Dialog } from '../../components/ui/dialog'
import { SelectField } from '../../components/ui/select-field'
import { api, isApiError } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'
import { LEAD_EXPORT_TYPES, LEAD_LIST_COLUMNS } from './export-columns'
import {
  exportQueries,
  exportRequest,
  type ExportChoice,
  type ExportFormat,
  type ExportSubject,
  type LeadExportType,
} from './export-queries'

const FORMATS: readonly { value: ExportFormat; label: string }[] = [
  { value: 'csv', label: 'CSV' },
  { value: 'json', label: 'JSON' },
]

/** What to export: the format and, for leads, the kind of row and the columns; then it asks the API for the file. */
export function ExportDialog({
  title,
  subject,
  onClose,
  onAsked,
}: {
  title: string
  subject: ExportSubject
  onClose: () => void
  onAsked: (view: ExportView) => void
}) {
  const [format, setFormat] = useState<ExportFormat>('csv')
  const [type, setType] = useState<LeadExportType>('leads')
  const [allColumns, setAllColumns] = useState(true)
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set())
  const [columnsError, setColumnsError] = useState<string | undefined>()
  const ask = useFormMutation(exportQueries.all(), (choice: ExportChoice) => {
    const { path, body } = exportRequest(subject, choice)
    return api.post<ExportView>(path, body)
  })
  const columns = LEAD_LIST_COLUMNS[type]

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const fields = allColumns ? undefined : columns.filter((c) => chosen.has(c.label)).map((c) => c.field)
    if (fields?.length === 0) {
      setColumnsError('Choose at least one column, or export all of them.')
      return
    }
    setColumnsError(undefined)
    ask.mutate({ format, type, fields }, { onSuccess: onAsked })
  }
  const failure = ask.error
  const failureText =
    failure === null
      ? undefined
      : isApiError(failure) && Object.keys(failure.fieldErrors).length > 0
        ? Object.entries(failure.fieldErrors)
            .map(([field, message]) => `${field}: ${message}`)
            .join(' ')
        : failure.message

  return (
    <Dialog
      title={title}
      isOpen
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
    >
      <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-900">Format</legend>
          <div className="flex gap-4">
            {FORMATS.map((option) => (
              <label key={option.value} className="flex items-center gap-2 text-sm text-slate-800">
                <input
                  type="radio"
                  name="export-format"
                  value={option.value}
                  checked={format === option.value}
                  className="size-4 accent-indigo-600"
                  onChange={() => {
                    setFormat(option.value)
                  }}
                />
                {option.label}
              </label>
            ))}
          </div>
        </fieldset>
        {subject.object === 'lead' ? (
          <>
            <SelectField
              label="Rows"
              value={type}
              options={LEAD_EXPORT_TYPES}
              onChange={(value) => {
                const known = LEAD_EXPORT_TYPES.find((t) => t.value === value)
                if (known !== undefined) setType(known.value)
              }}
            />
            <fieldset className="flex flex-col gap-2">
              <legend className="text-sm font-medium text-slate-900">Columns</legend>
              <CheckboxField
                label="All columns"
                description="Every column of the file; untick to choose among the list’s columns."
                checked={allColumns}
                onChange={setAllColumns}
              />
              {allColumns ? null : (
                <div className="flex flex-col gap-1 pl-6">
                  {columns.map((column) => (
                    <CheckboxField
                      key={column.label}
                      label={column.label}
                      checked={chosen.has(column.label)}
                      onChange={(checked) => {
                        const next = new Set(chosen)
                        if (checked) next.add(column.label)
                        else next.delete(column.label)
                        setChosen(next)
                      }}
                    />
                  ))}
                  {columnsError === undefined ? null : (
                    <p role="alert" className="text-sm text-red-700">
                      {columnsError}
                    </p>
                  )}
                </div>
              )}
            </fieldset>
          </>
        ) : null}
        {failureText === undefined ? null : (
          <p role="alert" className="text-sm text-red-700">
            {failureText}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button onPress={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" isPending={ask.isPending}>
            Start export
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
