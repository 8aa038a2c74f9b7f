import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Timestamps are text in the wire format (UTC, six fractional digits), which sorts the same in both dialects.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organization')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('currency', 'varchar(3)', (c) => c.notNull())
    .addColumn('country', 'varchar(2)', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('user')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_lower', 'text', (c) => c.notNull().unique())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('image', 'text')
    .addColumn('last_used_timezone', 'text')
    .addColumn('sip_username', 'text', (c) => c.notNull())
    .addColumn('sip_password', 'text', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('membership')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('membership_org_user_unique', ['organization_id', 'user_id'])
    .execute()
  await db.schema.createIndex('membership_user_idx').on('membership').column('user_id').execute()

  await db.schema
    .createTable('api_key')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('membership_id', 'varchar(64)', (c) => c.notNull().references('membership.id').onDelete('cascade'))
    .addColumn('secret_hash', 'varchar(128)', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_revoked', 'varchar(32)')
    .execute()

  await db.schema
    .createTable('lead_status')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('lead_status_org_idx')
    .on('lead_status')
    .columns(['organization_id', 'position'])
    .execute()

  await db.schema
    .createTable('pipeline')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('pipeline_org_idx').on('pipeline').columns(['organization_id', 'position']).execute()

  await db.schema
    .createTable('opportunity_status')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('pipeline_id', 'varchar(64)', (c) => c.notNull().references('pipeline.id'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('opportunity_status_org_idx')
    .on('opportunity_status')
    .columns(['organization_id', 'pipeline_id', 'position'])
    .execute()

  await db.schema
    .createTable('phone_number')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('number', 'varchar(32)', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(64)', (c) => c.references('user.id').onDelete('set null'))
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('phone_number_org_number_unique', ['organization_id', 'number'])
    .execute()

  await db.schema
    .createTable('user_presence')
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('client_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('last_seen', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_presence_pk', ['organization_id', 'user_id', 'client_type'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'user_presence',
    'phone_number',
    'opportunity_status',
    'pipeline',
    'lead_status',
    'api_key',
    'membership',
    'user',
    'organization',
  ]) {
    await db.schema.dropTable(table).execute()
  }
}
