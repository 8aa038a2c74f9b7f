import fc from 'fast-check'

// The model the in-memory term indexes (short terms, words) are tested against: each lead's document in a plain map,
// and a term's leads those whose document contains it.

/** What a term index offers the model: documents set and forgotten lead by lead, and the leads holding a form. */
export interface TermIndex {
  add(lead: number, text: string): void
  forget(lead: number): void
  leadsHolding(form: string): { toArray(): number[] } | undefined
}

export type TermStep =
  { kind: 'set'; lead: number; document: string } | { kind: 'remove'; lead: number } | { kind: 'ask'; form: string }

/** A document made of up to `maxPieces` of the given pieces. */
export function termDocument(pieces: readonly string[], maxPieces: number): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...pieces), { maxLength: maxPieces }).map((parts) => parts.join(''))
}

/** One step: a lead (0 to `lastLead`) given a document, a lead removed, or a form asked for. */
export function termStep(
  document: fc.Arbitrary<string>,
  forms: readonly string[],
  lastLead: number,
): fc.Arbitrary<TermStep> {
  return fc.oneof(
    fc.record({ kind: fc.constant('set' as const), lead: fc.nat({ max: lastLead }), document }),
    fc.record({ kind: fc.constant('remove' as const), lead: fc.nat({ max: lastLead }) }),
    fc.record({ kind: fc.constant('ask' as const), form: fc.constantFrom(...forms) }),
  )
}

/** The leads whose document contains `form`, in ascending order. */
export function leadsContaining(documents: ReadonlyMap<number, string>, form: string): number[] {
  return [...documents]
    .filter(([, text]) => text.includes(form))
    .map(([lead]) => lead)
    .sort((a, b) => a - b)
}

/**
 * Plays `steps` on the index and on `documents` alike (a set lead is forgotten first if it had a document), and hands
 * each asked form to `check` with the leads the model says hold it.
 */
export function playTermSteps(
  index: TermIndex,
  documents: Map<number, string>,
  steps: readonly TermStep[],
  check: (form: string, expected: number[]) => void,
): void {
  for (const step of steps) {
    if (step.kind === 'ask') {
      check(step.form, leadsContaining(documents, step.form))
      continue
    }
    if (documents.has(step.lead)) index.forget(step.lead)
    if (step.kind === 'set') {
      index.add(step.lead, step.document)
      documents.set(step.lead, step.document)
    } else documents.delete(step.lead)
  }
}
