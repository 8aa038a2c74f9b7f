import { isApiError } from './api'

// Where a form shows why the API refused it; no React, so the rule is unit-tested.

/**
 * A failed save's field errors beside the fields the form shows (a list's items' errors, `to.1`, beside the list's
 * field), and one message for the rest: the other fields' errors, or the error's own message when it names no field
 * (undefined when there is nothing more to say).
 */
export function placeErrors<F extends string>(
  fields: readonly F[],
  error: Error | null,
): { beside: Partial<Record<F, string>>; general: string | undefined } {
  if (error === null) return { beside: {}, general: undefined }
  const errors = isApiError(error) ? error.fieldErrors : {}
  const beside: Partial<Record<F, string>> = {}
  const rest: string[] = []
  for (const [key, message] of Object.entries(errors)) {
    const field = fields.find((f) => f === key || key.startsWith(`${f}.`))
    if (field === undefined) rest.push(`${key}: ${message}`)
    else beside[field] = beside[field] === undefined ? message : `${beside[field]} ${message}`
  }
  if (rest.length > 0) return { beside, general: rest.join(' ') }
  return { beside, general: Object.keys(beside).length === 0 ? error.message : undefined }
}

/** A failed save's field errors, and its message when it names no field. */
export function saveErrors(error: Error | null): {
  fieldErrors: Readonly<Record<string, string>>
  generalError: string | undefined
} {
  const fieldErrors = isApiError(error) ? error.fieldErrors : {}
  const generalError = error !== null && Object.keys(fieldErrors).length === 0 ? error.message : undefined
  return { fieldErrors, generalError }
}
