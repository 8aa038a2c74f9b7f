import { sql, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The opportunity rollup (migration 0010) in order of day won, then value period, with every column a report reads:
// the sums of a report by month, quarter, year or week add up each day first, walking this index, and then the
// days by their period, rather than sorting every rollup row by the period's key (decision 0014's report, issue 34).

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX opportunity_rollup_won_idx ON opportunity_rollup (organization_id, date_won, value_period,
    status_id, user_id, opportunities, value, annualized, expected, annualized_expected)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX opportunity_rollup_won_idx`.execute(db)
}
