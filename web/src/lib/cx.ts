/**
 * Class names joined with spaces, falsy parts left out. It resolves no conflicts: Tailwind orders utilities in its
 * stylesheet by property, not by class order, so a component takes a variant prop where a caller would replace one
 * of its own classes.
 */
export function cx(...parts: (string | false | null | undefined)[]): string {
  return parts.filter(Boolean).join(' ')
}
