import { TextField } from './text-field'

/** Each part of a person's name: the API's field (also the input's name), its label, and what autofill knows it as. */
const NAME_PARTS = [
  ['first_name', 'First name', 'given-name'],
  ['last_name', 'Last name', 'family-name'],
] as const

type NamePart = (typeof NAME_PARTS)[number][0]

/** A person's first and last name: each input's value and change, and the error beside it. */
export function PersonNameFields({
  fields,
  errors,
  isRequired = false,
}: {
  fields: Record<NamePart, { value: string; onChange: (value: string) => void }>
  errors: Partial<Record<NamePart, string>>
  isRequired?: boolean
}) {
  return NAME_PARTS.map(([part, label, autoComplete]) => (
    <TextField
      key={part}
      label={label}
      name={part}
      autoComplete={autoComplete}
      {...fields[part]}
      isRequired={isRequired}
      error={errors[part]}
    />
  ))
}
