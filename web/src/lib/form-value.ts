import { useState } from 'react'

/**
 * A value a form sends through `mutation`: each edit clears the mutation's last answer, so an old refusal never stays
 * beside new input. `field` (value and onChange) goes to the input.
 */
export function useFormValue<V>(initial: V | (() => V), mutation: { reset: () => void }) {
  const [value, setValue] = useState(initial)
  const field = {
    value,
    onChange: (next: V) => {
      setValue(next)
      mutation.reset()
    },
  }
  return { value, setValue, field }
}
