import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// `outcome.position`: the organization's order of its outcomes, which `GET /outcome/` answers in and admins change on
// the Call outcomes screen. Outcomes that exist keep the order they had, by case-folded name (compared as code points,
// the same in both dialects); a new outcome goes last.

interface OutcomeRow {
  id: string
  organization_id: string
  name_key: string
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('outcome')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  const outcomes = db.withTables<{ outcome: OutcomeRow & { position: number } }>()
  const rows = await outcomes.selectFrom('outcome').select(['id', 'organization_id', 'name_key']).execute()
  const byCodePoints = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  rows.sort((a, b) => byCodePoints(a.organization_id, b.organization_id) || byCodePoints(a.name_key, b.name_key))
  let organization: string | undefined
  let position = 0
  for (const row of rows) {
    position = row.organization_id === organization ? position + 1 : 0
    organization = row.organization_id
    await outcomes.updateTable('outcome').set({ position }).where('id', '=', row.id).execute()
  }
  await db.schema
    .createIndex('outcome_org_position_idx')
    .on('outcome')
    .columns(['organization_id', 'position'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('outcome_org_position_idx').execute()
  await db.schema.alterTable('outcome').dropColumn('position').execute()
}
