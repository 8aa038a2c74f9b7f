import { useState, type Dispatch, type SetStateAction } from 'react'

// The props that tie a text or select field to one key of a form's draft, so a form says each binding once.

export interface BoundField<V> {
  value: V
  onChange: (value: V) => void
  error: string | undefined
}

/**
 * `field(key)` gives `value`, `onChange` and `error` for the input editing `draft[key]`; `onEdit` runs after each
 * change (a form that clears its own message there).
 */
export function bindFields<D extends object>(
  draft: D,
  setDraft: Dispatch<SetStateAction<D>>,
  errors: Readonly<Partial<Record<string, string>>>,
  onEdit?: (key: keyof D & string) => void,
) {
  return <K extends keyof D & string>(key: K): BoundField<D[K]> => ({
    value: draft[key],
    onChange: (value) => {
      setDraft((d) => ({ ...d, [key]: value }))
      onEdit?.(key)
    },
    error: errors[key],
  })
}

/** A text a form checks before it sends; typing again clears the check's message. `field` goes to its TextField. */
export function useCheckedText(initial: string | (() => string) = '') {
  const [value, setValue] = useState(initial)
  const [error, setError] = useState<string>()
  const field: BoundField<string> = {
    value,
    error,
    onChange: (next) => {
      setValue(next)
      setError(undefined)
    },
  }
  return { value, setValue, setError, field }
}
