import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Opportunity sums kept by triggers, by organization, status, owner, value period and day won: a report over a
// million opportunities adds up thousands of these rows instead of reading every opportunity
// (docs/decisions/0014-opportunities.md). An owner or a day that is missing is stored as '' (part of the key).
// `expected` and `annualized_expected` add up each opportunity's own rounded figure, as the API shows it.

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
  return `INSERT INTO opportunity_rollup (organization_id, status_id, user_id, value_period, date_won, opportunities,
      value, annualized, expected, annualized_expected)
    VALUES (${row}.organization_id, ${row}.status_id, coalesce(${row}.user_id, ''), ${row}.value_period,
      coalesce(${row}.date_won, ''), ${String(sign)}, ${s}${VALUE(row)}, ${s}${ANNUALIZED(row)},
      ${s}${EXPECTED(VALUE(row), row)}, ${s}${EXPECTED(ANNUALIZED(row), row)})
    ON CONFLICT (organization_id, status_id, user_id, value_period, date_won) DO UPDATE SET
      opportunities = opportunity_rollup.opportunities + excluded.opportunities,
      value = opportunity_rollup.value + excluded.value,
      annualized = opportunity_rollup.annualized + excluded.annualized,
      expected = opportunity_rollup.expected + excluded.expected,
      annualized_expected = opportunity_rollup.annualized_expected + excluded.annualized_expected;`
}

/** Rows that no longer count anything go. */
const PRUNE = `DELETE FROM opportunity_rollup WHERE organization_id = OLD.organization_id AND status_id = OLD.status_id
    AND user_id = coalesce(OLD.user_id, '') AND value_period = OLD.value_period AND date_won = coalesce(OLD.date_won, '')
    AND opportunities = 0;`

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('opportunity_rollup')
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('status_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('value_period', 'varchar(16)', (c) => c.notNull())
    .addColumn('date_won', 'varchar(10)', (c) => c.notNull())
    .addColumn('opportunities', 'bigint', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('annualized', 'bigint', (c) => c.notNull())
    .addColumn('expected', 'bigint', (c) => c.notNull())
    .addColumn('annualized_expected', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('opportunity_rollup_pk', [
      'organization_id',
      'status_id',
      'user_id',
      'value_period',
      'date_won',
    ])
    .execute()
  await sql
    .raw(
      `INSERT INTO opportunity_rollup SELECT o.organization_id, o.status_id, coalesce(o.user_id, ''), o.value_period,
        coalesce(o.date_won, ''), count(*), sum(${VALUE('o')}), sum(${ANNUALIZED('o')}),
        sum(${EXPECTED(VALUE('o'), 'o')}), sum(${EXPECTED(ANNUALIZED('o'), 'o')})
      FROM opportunity o GROUP BY 1, 2, 3, 4, 5`,
    )
    .execute(db)
  if (isSqlite(db)) {
    await sql
      .raw(`CREATE TRIGGER opportunity_rollup_ai AFTER INSERT ON opportunity BEGIN ${change('NEW', 1)} END`)
      .execute(db)
    await sql
      .raw(`CREATE TRIGGER opportunity_rollup_ad AFTER DELETE ON opportunity BEGIN ${change('OLD', -1)} ${PRUNE} END`)
      .execute(db)
    await sql
      .raw(
        `CREATE TRIGGER opportunity_rollup_au AFTER UPDATE ON opportunity BEGIN
           ${change('OLD', -1)} ${PRUNE} ${change('NEW', 1)} END`,
      )
      .execute(db)
  } else {
    await sql
      .raw(
        `CREATE FUNCTION leadline_opportunity_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF TG_OP <> 'INSERT' THEN ${change('OLD', -1)} ${PRUNE} END IF;
           IF TG_OP <> 'DELETE' THEN ${change('NEW', 1)} END IF;
           RETURN NULL;
         END $$`,
      )
      .execute(db)
    await sql
      .raw(
        `CREATE TRIGGER opportunity_rollup_aiud AFTER INSERT OR UPDATE OR DELETE ON opportunity
           FOR EACH ROW EXECUTE FUNCTION leadline_opportunity_rollup()`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    for (const name of ['opportunity_rollup_ai', 'opportunity_rollup_ad', 'opportunity_rollup_au']) {
      await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db)
    }
  } else {
    await sql`DROP FUNCTION IF EXISTS leadline_opportunity_rollup() CASCADE`.execute(db)
  }
  await db.schema.dropTable('opportunity_rollup').execute()
}
