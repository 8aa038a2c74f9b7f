import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react'
import { inputStyles, labelStyles } from '../../components/ui/text-field'
import { useRemovalFocus } from '../../lib/row-keys'
import { addressLabel, parseAddresses, sameMailbox, type Address } from './email-address'
import { FieldErrorText } from '../../components/ui/field-error-text'

export interface AddressFieldProps {
  /** "To", "Cc" or "Bcc". */
  label: string
  addresses: readonly Address[]
  onChange: (addresses: Address[]) => void
  /** The lead's contacts' addresses, offered as the user types. */
  suggestions: readonly Address[]
  /** The API's word on these addresses. */
  error?: string | undefined
  autoFocus?: boolean
}

/**
 * Recipients as chips: typed or pasted addresses become chips at a comma, a semicolon, Enter or when the field is
 * left; a contact picked from the suggestions at once. What is no address stays in the field, with the reason.
 */
export function AddressField({ label, addresses, onChange, suggestions, error, autoFocus }: AddressFieldProps) {
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const removal = useRemovalFocus()
  // Focus on opening, which the user asked for (not the autoFocus attribute, which also acts on page loads).
  useEffect(() => {
    if (autoFocus === true) input.current?.focus()
  }, [autoFocus])
  const [text, setText] = useState('')
  const [invalid, setInvalid] = useState<string>()
  const shown = invalid ?? error
  const add = (typed: string) => {
    const parsed = parseAddresses(typed)
    const fresh = parsed.addresses.filter(
      (a, i, all) =>
        !addresses.some((b) => sameMailbox(a.email, b.email)) &&
        all.findIndex((b) => sameMailbox(a.email, b.email)) === i,
    )
    if (fresh.length > 0) onChange([...addresses, ...fresh])
    setText(parsed.invalid.join(', '))
    setInvalid(parsed.invalid.length === 0 ? undefined : `${parsed.invalid.join(', ')}: not an email address.`)
  }
  const keyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if ((event.key === 'Enter' || event.key === ',' || event.key === ';') && text.trim() !== '') {
      event.preventDefault()
      add(text)
    } else if (event.key === 'Enter') event.preventDefault()
    else if (event.key === 'Backspace' && text === '' && addresses.length > 0) onChange(addresses.slice(0, -1))
  }
  // The chip's button goes with it: the focus moves to the next chip's, else the previous one's, else the input.
  const remove = (index: number) => {
    removal.removing(
      addresses.map((a) => a.email.toLowerCase()),
      index,
      input.current,
    )
    onChange(addresses.filter((_, i) => i !== index))
  }
  const offered = suggestions.filter((s) => !addresses.some((a) => sameMailbox(a.email, s.email)))
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className={labelStyles}>
        {label}
      </label>
      <div
        className={`${inputStyles} flex flex-wrap items-center gap-1.5 py-1.5 focus-within:border-indigo-500 focus-within:ring-2 focus-within:ring-indigo-500/40`}
        aria-invalid={shown === undefined ? undefined : true}
      >
        {addresses.length === 0 ? null : (
          <ul aria-label={`${label} recipients`} className="contents">
            {addresses.map((address, index) => (
              <li
                key={address.email.toLowerCase()}
                className="inline-flex max-w-full min-w-0 items-center gap-1 rounded bg-slate-100 py-0.5 pr-0.5 pl-2 text-sm text-slate-800"
              >
                {/* A long name and address is cut short rather than pushing its × out of the field on a phone. */}
                <span className="truncate" title={addressLabel(address)}>
                  {addressLabel(address)}
                </span>
                <button
                  ref={removal.ref(address.email.toLowerCase())}
                  type="button"
                  aria-label={`Remove ${addressLabel(address)} from ${label}`}
                  className="rounded px-1 text-slate-600 hover:bg-slate-200 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none"
                  onClick={() => {
                    remove(index)
                  }}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <input
          id={id}
          list={`${id}-contacts`}
          type="text"
          autoComplete="off"
          ref={input}
          value={text}
          aria-invalid={shown === undefined ? undefined : true}
          aria-describedby={shown === undefined ? undefined : `${id}-error`}
          className="min-w-40 flex-1 border-0 bg-transparent p-0.5 text-sm outline-none"
          onChange={(event) => {
            const value = event.target.value
            setInvalid(undefined)
            // A suggestion picked, or a list pasted: chips at once.
            if (offered.some((s) => addressLabel(s) === value) || /[,;\n]/.test(value)) add(value)
            else setText(value)
          }}
          onKeyDown={keyDown}
          onBlur={() => {
            if (text.trim() !== '') add(text)
          }}
        />
        <datalist id={`${id}-contacts`}>
          {offered.map((s) => (
            <option key={s.email.toLowerCase()} value={addressLabel(s)} />
          ))}
        </datalist>
      </div>
      <FieldErrorText id={`${id}-error`} error={shown} />
    </div>
  )
}
