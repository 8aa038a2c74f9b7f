import { storePassword } from '../../accounts/account-repo.js'
import { inTransaction, type Db } from '../../platform/data/database.js'
import { randomBase62 } from '../../platform/security/ids.js'
import { provisionMember, provisionOrganization } from '../../crm/organizations/provision.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { setUpDemoEmailAccount } from './demo-email-account.js'
import { setUpDemoEmailTemplates } from './demo-email-templates.js'
import { setUpDemoOutcomes } from './demo-outcomes.js'
import { setUpDemoPhoneNumbers } from './demo-phone-numbers.js'
import { setUpDemoPipelines } from './demo-pipelines.js'
import type { DemoTitle, DemoUser } from './demo-user.js'

export const DEMO_ORGANIZATION_NAME = 'Demo Company'

export interface DemoOrganization {
  organization_id: string
  organization_name: string
  users: DemoUser[]
}

interface DemoPerson {
  email: string
  first_name: string
  last_name: string
  role: 'admin' | 'user'
  title: DemoTitle
}

const ADMIN: DemoPerson = {
  email: 'admin@demo.leadline.test',
  first_name: 'Alex',
  last_name: 'Admin',
  role: 'admin',
  title: 'admin',
}

// Leadline has two roles; a sales manager is an admin who is shown as a manager.
const MEMBERS: DemoPerson[] = [
  { email: 'manager@demo.leadline.test', first_name: 'Morgan', last_name: 'Manager', role: 'admin', title: 'manager' },
  { email: 'riley@demo.leadline.test', first_name: 'Riley', last_name: 'Rep', role: 'user', title: 'rep' },
  { email: 'sam@demo.leadline.test', first_name: 'Sam', last_name: 'Seller', role: 'user', title: 'rep' },
]

/**
 * A random password for a demo user, set on them: 16 base-62 characters, about 95 bits, so not put through the
 * strength check a person's choice gets (its dictionaries take half a second to load).
 */
async function demoPassword(db: Db, clock: Clock, userId: string): Promise<string> {
  const password = randomBase62(16)
  await storePassword(db, clock, userId, password)
  return password
}

/**
 * The demo organization with its pipelines (demo-pipelines.ts), call outcomes (demo-outcomes.ts), shared email
 * templates (demo-email-templates.ts), phone numbers (demo-phone-numbers.ts) and an admin (with an email account,
 * demo-email-account.ts), a manager and two reps, each with an API key; all of it or nothing.
 */
export async function seedDemoOrganization(db: Db, clock: Clock): Promise<DemoOrganization> {
  return inTransaction(db, async (tx) => {
    const admin = await provisionOrganization(tx, clock, {
      name: DEMO_ORGANIZATION_NAME,
      email: ADMIN.email,
      firstName: ADMIN.first_name,
      lastName: ADMIN.last_name,
    })
    const change = { userId: admin.user_id, now: formatTimestamp(clock.now()) }
    await setUpDemoPipelines(tx, admin.organization_id, change)
    await setUpDemoOutcomes(tx, admin.organization_id, change)
    await setUpDemoEmailTemplates(tx, admin.organization_id, change)
    const adminUser: DemoUser = {
      ...ADMIN,
      user_id: admin.user_id,
      membership_id: admin.membership_id,
      api_key: admin.api_key,
      password: await demoPassword(tx, clock, admin.user_id),
    }
    await setUpDemoEmailAccount(tx, admin.organization_id, adminUser, change.now)
    const users: DemoUser[] = [adminUser]
    for (const person of MEMBERS) {
      const member = await provisionMember(tx, clock, {
        organizationId: admin.organization_id,
        email: person.email,
        role: person.role,
        firstName: person.first_name,
        lastName: person.last_name,
      })
      users.push({
        ...person,
        user_id: member.user_id,
        membership_id: member.membership_id,
        api_key: member.api_key,
        password: await demoPassword(tx, clock, member.user_id),
      })
    }
    await setUpDemoPhoneNumbers(tx, admin.organization_id, users, formatTimestamp(clock.now()))
    return { organization_id: admin.organization_id, organization_name: DEMO_ORGANIZATION_NAME, users }
  })
}
