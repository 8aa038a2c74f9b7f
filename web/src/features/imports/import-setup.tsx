import { useMutation, useQuery } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import {
  DUPLICATE_ACTIONS,
  DUPLICATE_MATCHES,
  IMPORT_TARGETS,
  NEW_CUSTOM_FIELD,
  type DuplicateAction,
  type DuplicateMatch,
  type DuplicateRule,
  type ImportView,
} from '@leadline/shared/import-schema'
import { Button, focusRing } from '../../components/ui/button'
import { Skeleton } from '../../components/ui/feedback'
import { SelectField, type SelectOption } from '../../components/ui/select-field'
import { isApiError } from '../../lib/api'
import { cx } from '../../lib/cx'
import { setupQueries } from '../leads/lead-queries'
import { importQueries, importRequests } from './import-queries'

// Steps 2 to 4 (and the start of 5): map the columns, choose the duplicate rule, check the file, start the import.
// The mapping and the rule are saved (PUT) before each check and before the run.

const DONT_IMPORT = ''

export const MATCH_LABELS: Record<DuplicateMatch, string> = {
  email: 'Contact email',
  phone: 'Contact phone',
  url: 'Website domain',
  name: 'Company name',
  none: 'Nothing: every row is a new lead',
}

export const ACTION_LABELS: Record<DuplicateAction, string> = {
  skip: 'Skip the row',
  update: 'Update the lead',
  create: 'Create a new lead anyway',
}

const OBJECT_LABELS = { lead: 'Lead field', contact: 'Contact field', opportunity: 'Opportunity field' } as const

function targetOptions(fields: Record<keyof typeof OBJECT_LABELS, CustomField[] | undefined>): SelectOption[] {
  const custom = (['lead', 'contact', 'opportunity'] as const).flatMap((kind) =>
    (fields[kind] ?? []).map((field) => ({
      value: `custom.${field.id}`,
      label: `${OBJECT_LABELS[kind]}: ${field.name}`,
    })),
  )
  return [
    { value: DONT_IMPORT, label: 'Don’t import' },
    ...IMPORT_TARGETS.map(({ target, label }) => ({ value: target, label })),
    ...custom,
    { value: NEW_CUSTOM_FIELD, label: 'New custom field' },
  ]
}

/** A column's first few values in the preview, for telling columns apart. */
function samplesOf(view: ImportView, index: number): string {
  const values = view.preview.map((row) => row[index] ?? '').filter((value) => value.trim() !== '')
  return values.slice(0, 3).join(', ')
}

export function ImportSetup({ view, onChange }: { view: ImportView; onChange: (view: ImportView) => void }) {
  const [mapping, setMapping] = useState<Record<string, string>>(view.mapping)
  const [rule, setRule] = useState<DuplicateRule>(view.duplicate_rule)
  const leadFields = useQuery(setupQueries.customFields('lead'))
  const contactFields = useQuery(setupQueries.customFields('contact'))
  const opportunityFields = useQuery(setupQueries.customFields('opportunity'))
  const fieldsPending = leadFields.isPending || contactFields.isPending || opportunityFields.isPending
  const options = targetOptions({
    lead: leadFields.data,
    contact: contactFields.data,
    opportunity: opportunityFields.data,
  })
  const saveThen = (next: (id: string) => Promise<ImportView>) => async () => {
    const kept = Object.fromEntries(Object.entries(mapping).filter(([, target]) => target !== DONT_IMPORT))
    await importRequests.save(view.id, kept, rule)
    return next(view.id)
  }
  const check = useMutation({
    mutationKey: importQueries.all(),
    mutationFn: saveThen(importRequests.dryRun),
    meta: { errorTitle: false },
    onSuccess: onChange,
  })
  const start = useMutation({
    mutationKey: importQueries.all(),
    mutationFn: saveThen(importRequests.run),
    meta: { errorTitle: false },
    onSuccess: onChange,
  })
  const failure = check.error ?? start.error
  const fieldErrors = isApiError(failure) ? failure.fieldErrors : {}
  const isChecking = view.status === 'checking'
  const isPending = check.isPending || start.isPending || isChecking

  return (
    <>
      <section aria-labelledby="import-map-heading" className="flex flex-col gap-3">
        <h2 id="import-map-heading" className="text-lg font-semibold text-slate-900">
          2. Map columns
        </h2>
        <p className="text-sm text-slate-600">
          Each column of {view.filename} ({view.n_rows.toLocaleString('en-US')} rows) goes into the field chosen for it.
          Rows with the same company become one lead with several contacts.
        </p>
        {/* A mapping to a custom field shows once the fields are known; a select without its option would show none. */}
        {fieldsPending ? (
          <Skeleton className="h-40 w-full" />
        ) : (
          <div className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white">
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Columns of the file</caption>
              <thead className="border-b border-slate-200 bg-slate-50 text-xs font-semibold text-slate-600">
                <tr>
                  <th scope="col" className="px-4 py-2">
                    Column
                  </th>
                  <th scope="col" className="px-4 py-2">
                    Sample values
                  </th>
                  <th scope="col" className="px-4 py-2">
                    Import as
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {view.columns.map((column, index) => {
                  const name = column.trim() === '' ? `Column ${String(index + 1)}` : column
                  return (
                    <tr key={`${String(index)}-${column}`}>
                      <th scope="row" className="px-4 py-2 font-medium text-slate-900">
                        {name}
                      </th>
                      <td className="max-w-xs truncate px-4 py-2 text-slate-600">{samplesOf(view, index)}</td>
                      <td className="px-4 py-2">
                        <SelectField
                          label={name}
                          hideLabel
                          className="min-w-56"
                          value={mapping[column] ?? DONT_IMPORT}
                          options={options}
                          error={fieldErrors[`mapping.${column}`]}
                          onChange={(target) => {
                            setMapping({ ...mapping, [column]: target })
                          }}
                        />
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="import-duplicates-heading" className="flex flex-col gap-3">
        <h2 id="import-duplicates-heading" className="text-lg font-semibold text-slate-900">
          3. Duplicates
        </h2>
        <div className="flex flex-wrap gap-4">
          <SelectField
            label="Match rows to existing leads on"
            className="w-64"
            value={rule.match}
            options={DUPLICATE_MATCHES.map((match) => ({ value: match, label: MATCH_LABELS[match] }))}
            error={fieldErrors['duplicate_rule.match']}
            onChange={(value) => {
              const match = DUPLICATE_MATCHES.find((m) => m === value)
              if (match !== undefined) setRule({ ...rule, match })
            }}
          />
          <SelectField
            label="When a row matches a lead"
            className="w-64"
            value={rule.action}
            isDisabled={rule.match === 'none'}
            options={DUPLICATE_ACTIONS.map((action) => ({ value: action, label: ACTION_LABELS[action] }))}
            error={fieldErrors['duplicate_rule.action']}
            onChange={(value) => {
              const action = DUPLICATE_ACTIONS.find((a) => a === value)
              if (action !== undefined) setRule({ ...rule, action })
            }}
          />
        </div>
      </section>

      <section aria-labelledby="import-check-heading" className="flex flex-col gap-3">
        <h2 id="import-check-heading" className="text-lg font-semibold text-slate-900">
          4. Check
        </h2>
        <p className="text-sm text-slate-600">A dry run reads every row as the import would, and changes nothing.</p>
        <div>
          <Button
            isPending={check.isPending || isChecking}
            isDisabled={start.isPending}
            onPress={() => {
              check.mutate()
            }}
          >
            Check file
          </Button>
        </div>
        {isChecking ? (
          <p role="status" className="text-sm text-slate-700">
            Checking the file…
          </p>
        ) : null}
        {view.check === null || isChecking ? null : <CheckResult view={view} />}
      </section>

      <section aria-labelledby="import-run-heading" className="flex flex-col gap-3">
        <h2 id="import-run-heading" className="text-lg font-semibold text-slate-900">
          5. Run
        </h2>
        {failure === null ? null : (
          <p role="alert" className="text-sm text-red-700">
            {failure.message}
          </p>
        )}
        <div>
          <Button
            variant="primary"
            isPending={start.isPending}
            isDisabled={isPending}
            onPress={() => {
              start.mutate()
            }}
          >
            Start import
          </Button>
        </div>
      </section>
    </>
  )
}

/** A small table of what a check found: its caption and column headings over the rows given. */
function FindingsTable({
  caption,
  columns,
  className,
  children,
}: {
  caption: string
  columns: string[]
  className?: string
  children: ReactNode
}) {
  return (
    <table className={cx('w-full text-left text-sm', className)}>
      <caption className="text-left text-sm font-medium text-slate-900">{caption}</caption>
      <thead className="border-b border-slate-200 text-xs font-semibold text-slate-600">
        <tr>
          {columns.map((column, i) => (
            <th key={column} scope="col" className={cx('py-1', i < columns.length - 1 && 'pr-4')}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">{children}</tbody>
    </table>
  )
}

function CheckResult({ view }: { view: ImportView }) {
  const check = view.check
  if (check === null) return null
  const problems = Object.entries(check.problems).sort(([, a], [, b]) => b - a)
  return (
    <div className="flex flex-col gap-3">
      <p role="status" className="text-sm text-slate-800">
        {check.rows_ok.toLocaleString('en-US')} {check.rows_ok === 1 ? 'row' : 'rows'} ready to import,{' '}
        {check.rows_failed.toLocaleString('en-US')} {check.rows_failed === 1 ? 'row' : 'rows'} with problems.
      </p>
      {problems.length === 0 ? null : (
        <FindingsTable caption="Problems" columns={['Problem', 'Rows']} className="max-w-xl">
          {problems.map(([problem, rows]) => (
            <tr key={problem}>
              <th scope="row" className="py-1 pr-4 font-normal text-slate-800">
                {problem}
              </th>
              <td className="py-1 tabular-nums">{rows.toLocaleString('en-US')}</td>
            </tr>
          ))}
        </FindingsTable>
      )}
      {check.sample.length === 0 ? null : (
        <div className="relative overflow-x-auto">
          <FindingsTable caption="Problem rows" columns={['Row', 'Column', 'Value', 'Problem']}>
            {check.sample.map((problem, i) => (
              <tr key={`${String(problem.row)}-${String(i)}`}>
                <td className="py-1 pr-4 tabular-nums">{problem.row}</td>
                <td className="py-1 pr-4">{problem.column ?? '—'}</td>
                <td className="py-1 pr-4">{problem.value ?? '—'}</td>
                <td className="py-1">{problem.problem}</td>
              </tr>
            ))}
          </FindingsTable>
        </div>
      )}
      {view.failed_rows_url === null ? null : (
        <a
          href={view.failed_rows_url}
          download
          className={cx('self-start rounded text-sm font-medium text-indigo-700 hover:underline', focusRing)}
        >
          Download problem rows
        </a>
      )}
    </div>
  )
}
