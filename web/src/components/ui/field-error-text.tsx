/** A field's error under it, named by the field's `aria-describedby`; nothing while there is none. */
export function FieldErrorText({ id, error }: { id: string | undefined; error: string | undefined }) {
  if (error === undefined) return null
  return (
    <p id={id} className="text-sm text-red-700">
      {error}
    </p>
  )
}
