import { ensureLeadSearchCurrent } from '../../crm/leads/lead-search-index.js'
import { inTransaction } from '../../platform/data/database.js'
import { systemClock } from '../../platform/data/time.js'
import { withRollbackJournal, withUnsyncedSeedOfNewFile } from '../../tooling/demo/demo-bulk-write.js'
import { seedDemoLeads } from '../../tooling/demo/demo-leads.js'
import { seedDemoOrganization } from '../../tooling/demo/demo-seed.js'
import { seedDemoTasks } from '../../tooling/demo/demo-tasks.js'
import { seedProgress } from '../../tooling/demo/seed-progress.js'
import { leadlineCommand } from './cli-command.js'
import { nonNegativeInt, progress, table, withDatabase } from './cli-support.js'

export function seedDemoCommand() {
  return leadlineCommand({
    name: 'demo',
    usage: '[--leads N]',
    summary: 'create the demo organization with an admin, a manager and two reps',
    options: [['--leads <N>', 'how many demo leads to create (default 0)']],
    notes: `The leads come with contacts, addresses, custom values, notes, status changes, on about 60 % of them
opportunities, and on some each user's tasks. Progress goes to stderr: a bar on a terminal, a line every tenth of
the way elsewhere.
Prints {"organization_id","organization_name","users":[{"user_id","membership_id","email","first_name",
"last_name","role","title","api_key"}]}. Running it again creates another demo organization with new keys.`,
    async run(input) {
      const leads = nonNegativeInt(input.string('--leads'), '--leads', 0, 1_000_000)
      const { demo, leadsCreated } = await withDatabase(
        input.databaseUrl(),
        async (db) => {
          // The seeded leads get current documents: older ones are rebuilt first, so the version recorded holds
          // for all.
          await ensureLeadSearchCurrent(db, { onProgress: progress(input.json, 'reindexing', 'reindexed') })
          const report = seedProgress(process.stderr)
          try {
            // One transaction: an interrupted seed leaves no demo organization without its leads. The file to
            // itself while it writes, when no one else has it open (withRollbackJournal); its commit, and the
            // switch back to the write-ahead log after it, not synced when the file held nothing before
            // (withUnsyncedSeedOfNewFile).
            return await withUnsyncedSeedOfNewFile(db, leads, () =>
              withRollbackJournal(db, () =>
                inTransaction(db, async (tx) => {
                  const organization = await seedDemoOrganization(tx, systemClock)
                  const created = await seedDemoLeads(tx, systemClock, organization.organization_id, leads, {
                    onProgress: report.onProgress,
                    onFinishing: report.onFinishing,
                  })
                  await seedDemoTasks(tx, systemClock, organization)
                  return { demo: organization, leadsCreated: created }
                }),
              ),
            )
          } finally {
            report.end()
          }
        },
        // One connection: a second one (the point reads') would keep the seed in WAL mode.
        { oneConnection: true },
      )
      const rows = table(demo.users.map((u) => [u.title, u.role, `${u.first_name} ${u.last_name}`, u.email, u.api_key]))
      return {
        json: { organization_id: demo.organization_id, organization_name: demo.organization_name, users: demo.users },
        text: `Created "${demo.organization_name}" (${demo.organization_id}) with ${leadsCreated} leads and these users:
${rows}
Keep the keys secret; they are not shown again.`,
      }
    },
  })
}
