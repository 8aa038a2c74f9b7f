import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The opportunity rollup (migration 0010) without its day: sums by organization, status, owner and value period, kept
// by triggers of their own beside the rollup's. Every page of the opportunity list answers its sums; those that name
// no day won add up these rows (a few per status and owner) rather than the rollup's (74,067 rows for the bench's
// million opportunities: 20–36 ms in Postgres a page). Filled from the rollup, whose sums it adds up. The triggers'
// names begin as the rollup's, so that a bulk load sets them aside with them (demo-bulk-write.ts).

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

const VALUE = (row: string) => `coalesce(${row}.value, 0)`
const ANNUALIZED = (row: string) =>
  `(case when ${row}.value_period = 'monthly' then ${VALUE(row)} * 12 else ${VALUE(row)} end)`
const EXPECTED = (amount: string, row: string) => `round(${amount} * ${row}.confidence / 100.0)`

/** The statement that adds (`sign` 1) or takes away (-1) one opportunity row's share. */
function change(row: 'NEW' | 'OLD', sign: 1 | -1): string {
  const s = sign === 1 ? '+' : '-'
  return `INSERT INTO opportunity_rollup_total (organization_id, status_id, user_id, value_period, opportunities,
      value, annualized, expected, annualized_expected)
    VALUES (${row}.organization_id, ${row}.status_id, coalesce(${row}.user_id, ''), ${row}.value_period,
      ${String(sign)}, ${s}${VALUE(row)}, ${s}${ANNUALIZED(row)},
      ${s}${EXPECTED(VALUE(row), row)}, ${s}${EXPECTED(ANNUALIZED(row), row)})
    ON CONFLICT (organization_id, status_id, user_id, value_period) DO UPDATE SET
      opportunities = opportunity_rollup_total.opportunities + excluded.opportunities,
      value = opportunity_rollup_total.value + excluded.value,
      annualized = opportunity_rollup_total.annualized + excluded.annualized,
      expected = opportunity_rollup_total.expected + excluded.expected,
      annualized_expected = opportunity_rollup_total.annualized_expected + excluded.annualized_expected;`
}

/** Rows that no longer count anything go. */
const PRUNE = `DELETE FROM opportunity_rollup_total WHERE organization_id = OLD.organization_id
    AND status_id = OLD.status_id AND user_id = coalesce(OLD.user_id, '') AND value_period = OLD.value_period
    AND opportunities = 0;`

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('opportunity_rollup_total')
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('status_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('value_period', 'varchar(16)', (c) => c.notNull())
    .addColumn('opportunities', 'bigint', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('annualized', 'bigint', (c) => c.notNull())
    .addColumn('expected', 'bigint', (c) => c.notNull())
    .addColumn('annualized_expected', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('opportunity_rollup_total_pk', ['organization_id', 'status_id', 'user_id', 'value_period'])
    .execute()
  await sql`INSERT INTO opportunity_rollup_total SELECT organization_id, status_id, user_id, value_period,
      sum(opportunities), sum(value), sum(annualized), sum(expected), sum(annualized_expected)
    FROM opportunity_rollup GROUP BY 1, 2, 3, 4`.execute(db)
  if (isSqlite(db)) {
    await sql
      .raw(`CREATE TRIGGER opportunity_rollup_total_ai AFTER INSERT ON opportunity BEGIN ${change('NEW', 1)} END`)
      .execute(db)
    await sql
      .raw(
        `CREATE TRIGGER opportunity_rollup_total_ad AFTER DELETE ON opportunity BEGIN ${change('OLD', -1)} ${PRUNE} END`,
      )
      .execute(db)
    await sql
      .raw(
        `CREATE TRIGGER opportunity_rollup_total_au AFTER UPDATE ON opportunity BEGIN
           ${change('OLD', -1)} ${PRUNE} ${change('NEW', 1)} END`,
      )
      .execute(db)
  } else {
    await sql
      .raw(
        `CREATE FUNCTION leadline_opportunity_rollup_total() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF TG_OP <> 'INSERT' THEN ${change('OLD', -1)} ${PRUNE} END IF;
           IF TG_OP <> 'DELETE' THEN ${change('NEW', 1)} END IF;
           RETURN NULL;
         END $$`,
      )
      .execute(db)
    await sql
      .raw(
        `CREATE TRIGGER opportunity_rollup_total_aiud AFTER INSERT OR UPDATE OR DELETE ON opportunity
           FOR EACH ROW EXECUTE FUNCTION leadline_opportunity_rollup_total()`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    for (const name of ['opportunity_rollup_total_ai', 'opportunity_rollup_total_ad', 'opportunity_rollup_total_au']) {
      await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db)
    }
  } else {
    await sql`DROP FUNCTION IF EXISTS leadline_opportunity_rollup_total() CASCADE`.execute(db)
  }
  await db.schema.dropTable('opportunity_rollup_total').execute()
}
