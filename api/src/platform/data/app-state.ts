import type { Db } from './database.js'

/** Keys of `app_state`: facts about the database as a whole, not about any one organization. */
export type AppStateKey = 'lead_search_document_version' | 'lead_webhook_url' | 'lead_webhook_signature_key'

export async function readAppState(db: Db, key: AppStateKey): Promise<string | undefined> {
  const row = await db.selectFrom('app_state').select('value').where('key', '=', key).executeTakeFirst()
  return row?.value
}

export async function writeAppState(db: Db, key: AppStateKey, value: string): Promise<void> {
  await db
    .insertInto('app_state')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute()
}

export async function deleteAppState(db: Db, key: AppStateKey): Promise<void> {
  await db.deleteFrom('app_state').where('key', '=', key).execute()
}
