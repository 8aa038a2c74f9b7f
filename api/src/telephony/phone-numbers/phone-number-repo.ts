import type { PhoneNumber } from '@leadline/shared/phone-number-schema'
import type { Db, PhoneNumberTable, Tx } from '../../platform/data/database.js'
import { isUniqueViolation } from '../../platform/data/db-errors.js'
import { newId } from '../../platform/security/ids.js'
import { formatPhoneNumber } from '../../platform/text/phone-format.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'
import type { EventAction, EventInput } from '../../integrations/events/event-repo.js'

type Queryable = Db | Tx
type PhoneNumberType = PhoneNumberTable['type']

export function phoneNumberView(row: PhoneNumberTable): PhoneNumber {
  return {
    id: row.id,
    organization_id: row.organization_id,
    number: row.number,
    number_formatted: formatPhoneNumber(row.number),
    label: row.label,
    type: row.type,
    user_id: row.user_id,
    is_group_number: false,
    sms_enabled: row.type === 'internal',
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

/** A phone number's event: organization-wide, under no lead; other admins' Phone numbers screens refresh from it. */
export function phoneNumberEvent(view: PhoneNumber, action: EventAction, previous?: PhoneNumber): EventInput {
  return {
    objectType: 'phone_number',
    objectId: view.id,
    action,
    leadId: null,
    data: view,
    ...(previous === undefined ? {} : { previous }),
  }
}

export interface PhoneNumberFilter {
  /** Already in E.164. */
  number?: string
  user_id?: string
  type?: PhoneNumberType
}

export function phoneNumbersQuery(db: Queryable, organizationId: string, filter: PhoneNumberFilter) {
  let query = db.selectFrom('phone_number').selectAll().where('organization_id', '=', organizationId)
  if (filter.number !== undefined) query = query.where('number', '=', filter.number)
  if (filter.user_id !== undefined) query = query.where('user_id', '=', filter.user_id)
  if (filter.type !== undefined) query = query.where('type', '=', filter.type)
  return query.orderBy('date_created').orderBy('id')
}

export async function findPhoneNumber(db: Queryable, organizationId: string, id: string) {
  return findInOrganization(db, 'phone_number', organizationId, id)
}

/** The organization's `internal` number equal to `e164`: the only numbers SMS may be sent from. */
export async function findInternalPhoneNumber(db: Queryable, organizationId: string, e164: string) {
  return db
    .selectFrom('phone_number')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('number', '=', e164)
    .where('type', '=', 'internal')
    .executeTakeFirst()
}

/** Thrown by `insertPhoneNumber` when the organization already has the number. */
export class DuplicatePhoneNumberError extends Error {
  constructor() {
    super('The organization already has this phone number.')
    this.name = 'DuplicatePhoneNumberError'
  }
}

// Relies on the (organization_id, number) unique constraint, so two concurrent inserts cannot both succeed.
export async function insertPhoneNumber(
  db: Queryable,
  input: {
    organizationId: string
    number: string
    label: string | null
    type: PhoneNumberType
    userId: string | null
    now: string
  },
): Promise<PhoneNumberTable> {
  const row: PhoneNumberTable = {
    id: newId('phoneNumber'),
    organization_id: input.organizationId,
    number: input.number,
    label: input.label,
    type: input.type,
    user_id: input.userId,
    date_created: input.now,
    date_updated: input.now,
  }
  try {
    await db.insertInto('phone_number').values(row).execute()
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicatePhoneNumberError()
    throw error
  }
  return row
}

export async function updatePhoneNumber(
  db: Queryable,
  organizationId: string,
  id: string,
  input: { label?: string | null; type?: PhoneNumberType; user_id?: string | null; now: string },
): Promise<void> {
  await db
    .updateTable('phone_number')
    .set({
      ...(input.label === undefined ? {} : { label: input.label }),
      ...(input.type === undefined ? {} : { type: input.type }),
      ...(input.user_id === undefined ? {} : { user_id: input.user_id }),
      date_updated: input.now,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
}

export async function deletePhoneNumber(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('phone_number').where('organization_id', '=', organizationId).where('id', '=', id).execute()
}
