import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../app/app.js'
import { loadConfig } from '../../platform/config.js'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest, migrateUpTo } from '../../platform/data/migrate.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  call,
  createOrg,
  createTestDatabase,
  TEST_SECRET_KEY,
  TestClock,
  type TestDatabase,
} from '../../tooling/test-support/test-app.js'
import { insertEmailAttachments, receivedFile } from './email-attachment-repo.js'

// Migration 0024 on a database that holds received files already: they stay as they were, with their email, and go
// with it; a file may then be in no email. On SQLite the table is rebuilt, so this is where a lost row would show.

let testDb: TestDatabase
let database: DatabaseHandle
const clock = new TestClock()
const bytes = Buffer.from([0, 1, 2, 3, 254, 255, 10, 13, 0x22, 0x27])
/** The columns later migrations add that today's app reads or writes on this path: table, and its definition. */
const LATER_COLUMNS: [string, string][] = [
  ['activity', 'sender_check varchar(8)'],
  ['activity', 'sender_check_reason text'],
  ['api_key', "kind varchar(16) not null default 'api'"],
  ['api_key', 'description text'],
  ['api_key', 'date_expires varchar(32)'],
  ['api_key', 'idle_seconds integer'],
  ['api_key', 'date_last_used varchar(32)'],
  ['membership', "status varchar(16) not null default 'active'"],
  ['membership', 'date_deactivated varchar(32)'],
  ['user', 'totp_enabled_at varchar(32)'],
  ['organization', 'require_two_factor integer not null default 0'],
  ['custom_field', 'position integer not null default 0'],
  ['contact', 'position integer not null default 0'],
  ['event', "meta text not null default '{}'"],
  ['lead_search', "phone text not null default ''"],
]

let emailId: string
let fileId: string
let organizationId: string
let key: string

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  expect(await migrateUpTo(database.db, '0023-email-attachments')).toContain('0023-email-attachments')
  const org = await createOrg(database, clock, 'Before Uploads')
  organizationId = org.id
  key = org.member.key
  // The app of today writes the lead and the email (their tables are as 0023 left them, but for the columns of
  // 0026, which every activity is written with, of 0028 and 0030, which every request's key is checked with, of
  // 0034, which lead writes read custom fields in the order of, of 0036, which a lead's contacts are read in the
  // order of, of 0037, which every event is written with, and of 0051, which a lead's search row is written with:
  // they are added for it, and taken out again before migrating); the file is written as incoming mail wrote it
  // before 0024.
  for (const [table, column] of LATER_COLUMNS) {
    await sql`alter table ${sql.table(table)} add column ${sql.raw(column)}`.execute(database.db)
  }
  const app = await buildApp({
    database,
    config: loadConfig({ DATABASE_URL: testDb.url, LEADLINE_SECRET_KEY: TEST_SECRET_KEY }),
    clock,
    logger: false,
  })
  const lead = await call(app, key, 'POST', '/lead/', { body: { name: 'Old Mail' } })
  const email = await call(app, key, 'POST', '/activity/email/', {
    body: { lead_id: lead.json<{ id: string }>().id, status: 'inbox', sender: 'a@old.example', subject: 'Old' },
  })
  expect(email.statusCode, email.body).toBe(200)
  emailId = email.json<{ id: string }>().id
  const file = receivedFile({
    filename: 'old.bin',
    contentType: 'application/octet-stream',
    contentId: 'x@y',
    content: bytes,
  })
  fileId = file.id
  await insertEmailAttachments(
    database.db,
    { organizationId, activityId: emailId, now: formatTimestamp(clock.now()) },
    [file],
  )
  await app.close()
  for (const [table, column] of LATER_COLUMNS) {
    await sql`alter table ${sql.table(table)} drop column ${sql.raw(column.split(' ')[0] ?? '')}`.execute(database.db)
  }
  expect(await migrateToLatest(database.db)).toContain('0024-email-attachment-uploads')
})
afterAll(async () => {
  await database.close()
  await testDb.drop()
})

describe('migration 0024', () => {
  it('keeps every stored file as it was, in its email', async () => {
    const row = await database.db
      .selectFrom('email_attachment')
      .selectAll()
      .where('id', '=', fileId)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      organization_id: organizationId,
      activity_id: emailId,
      filename: 'old.bin',
      content_type: 'application/octet-stream',
      content_id: 'x@y',
      size: bytes.length,
    })
    expect(Buffer.from(row.content, 'base64').equals(bytes)).toBe(true)
  })

  it('lets a file be in no email, and still deletes an email’s files with it', async () => {
    const now = formatTimestamp(clock.now())
    await database.db
      .insertInto('email_attachment')
      .values({
        id: 'attach_unbound',
        organization_id: organizationId,
        activity_id: null,
        filename: 'new.txt',
        content_type: 'text/plain',
        content_id: null,
        size: 1,
        content: 'eA==',
        date_created: now,
      })
      .execute()
    await database.db.deleteFrom('activity').where('id', '=', emailId).execute()
    const left = await database.db.selectFrom('email_attachment').select(['id', 'activity_id']).execute()
    expect(left).toEqual([{ id: 'attach_unbound', activity_id: null }])
  })

  it('has the index of an email’s files again, and the one of files in no email', async () => {
    const names =
      database.dialect === 'sqlite'
        ? sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'email_attachment'`
        : sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'email_attachment'`
    const { rows } = await names.execute(database.db)
    expect(rows.map((r) => r.name)).toEqual(
      expect.arrayContaining(['email_attachment_activity_idx', 'email_attachment_unbound_idx']),
    )
  })

  it('still refuses a file of an email that does not exist', async () => {
    const insert = database.db
      .insertInto('email_attachment')
      .values({
        id: 'attach_orphan',
        organization_id: organizationId,
        activity_id: 'acti_nothing',
        filename: 'x',
        content_type: 'text/plain',
        content_id: null,
        size: 1,
        content: 'eA==',
        date_created: formatTimestamp(clock.now()),
      })
      .execute()
    await expect(insert).rejects.toThrow(/foreign key/i)
  })
})
