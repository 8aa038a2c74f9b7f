import {
  FieldError,
  Input,
  Label,
  Text,
  TextArea,
  TextField as AriaTextField,
  type TextFieldProps as AriaTextFieldProps,
} from 'react-aria-components'

export interface TextFieldProps extends Omit<AriaTextFieldProps, 'className' | 'children'> {
  label: string
  /** A message from the server (or the form) shown beside the field; the field is marked invalid while it is set. */
  error?: string | undefined
  description?: string
  multiline?: boolean
  rows?: number
  placeholder?: string
  className?: string
  inputClassName?: string
}

export const inputStyles =
  'w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-xs outline-none placeholder:text-slate-400 focus:border-indigo-500 focus-visible:ring-2 focus-visible:ring-indigo-500/40 aria-invalid:border-red-500 data-invalid:border-red-500 disabled:bg-slate-100'

export const labelStyles = 'text-sm font-medium text-slate-700'

export function TextField({
  label,
  error,
  description,
  multiline = false,
  rows = 3,
  placeholder,
  className = '',
  inputClassName = '',
  ...props
}: TextFieldProps) {
  return (
    <AriaTextField
      {...props}
      isInvalid={error !== undefined || props.isInvalid}
      className={`flex flex-col gap-1 ${className}`}
    >
      <Label className={labelStyles}>{label}</Label>
      {multiline ? (
        <TextArea rows={rows} placeholder={placeholder} className={`${inputStyles} ${inputClassName}`} />
      ) : (
        <Input placeholder={placeholder} className={`${inputStyles} ${inputClassName}`} />
      )}
      {description === undefined ? null : (
        <Text slot="description" className="text-xs text-slate-500">
          {description}
        </Text>
      )}
      <FieldError className="text-sm text-red-700">{error}</FieldError>
    </AriaTextField>
  )
}
