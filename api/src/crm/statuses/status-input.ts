import { Type } from '@sinclair/typebox'
import { ValidationError } from '../../platform/http/errors.js'

/** The longest status label, and pipeline name, the API stores. */
export const LABEL_MAX = 200

export const labelSchema = Type.String({
  description: `Trimmed; 1 to ${LABEL_MAX} characters; unique ignoring case (per organization for lead statuses, per pipeline for opportunity statuses).`,
})

/** Why a trimmed label cannot be stored (blank, too long), or undefined when it can. */
export function labelProblem(label: string): string | undefined {
  if (label === '') return 'This field may not be blank.'
  if (label.length > LABEL_MAX) return `Ensure this field has no more than ${LABEL_MAX} characters.`
  return undefined
}

/** The trimmed label, or a field error on `field` when it is blank or too long. */
export function cleanLabel(raw: string, field = 'label'): string {
  const label = raw.trim()
  const problem = labelProblem(label)
  if (problem !== undefined) throw ValidationError.field(field, problem)
  return label
}

/** Whether two labels are the same ignoring case. */
export function sameLabel(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}
