import type { Db } from '../../platform/data/database.js'
import { insertOutcome, type OutcomeFields } from '../../crm/outcomes/outcome-repo.js'

/** The demo's call outcomes, so the lead page's Log a call has some to pick. */
export const DEMO_OUTCOMES: readonly OutcomeFields[] = [
  { name: 'Interested', description: 'Wants to hear more.', type: 'custom', applies_to: ['calls', 'meetings'] },
  { name: 'Not interested', description: null, type: 'custom', applies_to: ['calls', 'meetings'] },
  { name: 'Left voicemail', description: null, type: 'vm-dropped', applies_to: ['calls'] },
  { name: 'No answer', description: null, type: 'custom', applies_to: ['calls'] },
  {
    name: 'Call back later',
    description: 'Asked to be called at another time.',
    type: 'custom',
    applies_to: ['calls'],
  },
]

export async function setUpDemoOutcomes(
  db: Db,
  organizationId: string,
  change: { userId: string; now: string },
): Promise<void> {
  for (const outcome of DEMO_OUTCOMES) await insertOutcome(db, { ...outcome, organizationId, ...change })
}
