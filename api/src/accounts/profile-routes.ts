import { Type, type Static } from '@sinclair/typebox'
import { isTimeZone } from '@leadline/shared/tz-offset'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../crm/deps.js'
import { displayName } from '../crm/users/user-repo.js'
import type { Db } from '../platform/data/database.js'
import { formatTimestamp } from '../platform/data/time.js'
import { ValidationError } from '../platform/http/errors.js'
import { caller } from '../platform/http/request-context.js'

const tags = ['sessions']
export const NAME_MAX = 100

const profileSchema = Type.Object({
  first_name: Type.Union([Type.String(), Type.Null()]),
  last_name: Type.Union([Type.String(), Type.Null()]),
  email: Type.String(),
  display_name: Type.String({ description: 'First and last name where given, else the email.' }),
  time_zone: Type.Union([Type.String(), Type.Null()], {
    description: 'The IANA zone the app shows times and “today” in; null: the browser’s.',
  }),
})

const profileBody = Type.Object(
  {
    first_name: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
    last_name: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
    time_zone: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  },
  { additionalProperties: false },
)

async function profileOf(db: Db, userId: string): Promise<Static<typeof profileSchema>> {
  const user = await db
    .selectFrom('user')
    .select(['first_name', 'last_name', 'email', 'time_zone'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
  return { ...user, display_name: displayName(user) }
}

/** A name as stored: trimmed, null when empty; refused (by field) over 100 characters or with control characters. */
function cleanName(field: 'first_name' | 'last_name', value: string | null): string | null {
  const name = value?.trim() ?? ''
  if (name.length > NAME_MAX) throw ValidationError.field(field, `Use at most ${String(NAME_MAX)} characters.`)
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) throw ValidationError.field(field, 'Use letters, not control characters.')
  return name === '' ? null : name
}

/** A zone as stored: an IANA name the runtime knows, or null for the browser's. */
function cleanTimeZone(value: string | null): string | null {
  const zone = value?.trim() ?? ''
  if (zone === '') return null
  if (!isTimeZone(zone))
    throw ValidationError.field('time_zone', 'Choose a time zone from the list, e.g. Europe/Paris.')
  return zone
}

/**
 * The caller's own name and time zone, which they change on their Profile (Leadline's own; Close has no such
 * route). Every place a user's name or zone shows reads it live or from caches the user row's change invalidates
 * (migration 0005's triggers).
 */
export const profileRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock }) => {
  app.get(
    '/auth/profile/',
    { schema: { tags, summary: 'The caller’s name, email and time zone', response: { 200: profileSchema } } },
    async (request) => profileOf(db, caller(request).userId),
  )

  app.put(
    '/auth/profile/',
    {
      schema: {
        tags,
        summary: 'Change the caller’s first and last name, and the time zone the app shows',
        description:
          'A name is trimmed; an empty one is removed (the email then stands for it). At most 100 characters. ' +
          'The time zone is an IANA name; null or empty goes back to the browser’s. `/me/` answers it as ' +
          '`time_zone`, and the web app’s session takes it at sign-in and whenever it refreshes.',
        body: profileBody,
        response: { 200: profileSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const changes: { first_name?: string | null; last_name?: string | null; time_zone?: string | null } = {}
      if (request.body.first_name !== undefined) changes.first_name = cleanName('first_name', request.body.first_name)
      if (request.body.last_name !== undefined) changes.last_name = cleanName('last_name', request.body.last_name)
      if (request.body.time_zone !== undefined) changes.time_zone = cleanTimeZone(request.body.time_zone)
      if (Object.keys(changes).length > 0)
        await db
          .updateTable('user')
          .set({ ...changes, date_updated: formatTimestamp(clock.now()) })
          .where('id', '=', me.userId)
          .execute()
      return profileOf(db, me.userId)
    },
  )
}
