import type { Db } from '../../platform/data/database.js'
import { insertPhoneNumber } from '../../telephony/phone-numbers/phone-number-repo.js'
import type { DemoUser } from './demo-user.js'

// The demo organization's own numbers, from the range set aside for fiction (555-0100 to 555-0199): a shared main
// line and a direct line for each rep, so texts can be sent and incoming ones find their owner out of the box.

const MAIN_LINE = '+14155550100'

/** The demo's internal numbers: the main line (no owner) and one per rep, owned by the rep. */
export async function setUpDemoPhoneNumbers(tx: Db, organizationId: string, users: DemoUser[], now: string) {
  await insertPhoneNumber(tx, {
    organizationId,
    number: MAIN_LINE,
    label: 'Main line',
    type: 'internal',
    userId: null,
    now,
  })
  let line = 101
  for (const user of users.filter((u) => u.title === 'rep')) {
    await insertPhoneNumber(tx, {
      organizationId,
      number: `+1415555${String(line).padStart(4, '0')}`,
      label: `${user.first_name} (direct)`,
      type: 'internal',
      userId: user.user_id,
      now,
    })
    line += 1
  }
}
