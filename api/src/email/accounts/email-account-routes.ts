import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { emailAccountSchema, type EmailAccountView } from '@leadline/shared/email-account-schema'
import type { Db, EmailAccountTable } from '../../platform/data/database.js'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import type { Deps } from '../../crm/deps.js'
import { found } from '../../platform/data/find-or-404.js'
import { crudSchemas, idParams, listPageViews } from '../../platform/http/crud-routes.js'
import { ForbiddenError, ValidationError } from '../../platform/http/errors.js'
import { listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { checkedForMember, checkedPassword, identitiesForNewAddress } from './email-account-input.js'
import {
  AddressTakenError,
  deleteEmailAccount,
  DuplicateEmailAccountError,
  emailAccountsQuery,
  emailAccountViews,
  explainAddressConflict,
  findEmailAccountRow,
  insertEmailAccount,
  oneEmailAccountView,
  updateEmailAccount,
} from './email-account-repo.js'
import { resendVerificationLink, verifyAddress } from './email-address-verification.js'
import { isUniqueViolation } from '../../platform/data/db-errors.js'
import { parseAddress } from '../../platform/text/email-text.js'
import { hasControlCharacter } from '../../platform/text/text.js'
import { sendTestEmail } from '../send/email-test-send.js'
import { eventContext, guardedEvents, recordEvents } from '../../integrations/events/event-repo.js'

/**
 * An email account's event, which other admins' screens and the owner's profile follow: its owner is shown; its
 * addresses and server are not, since any member reads the event log.
 */
const accountEvent = guardedEvents('email_account', (v: EmailAccountView) => ({
  id: v.id,
  shown: { user_id: v.user_id, updated_by: v.updated_by, date_updated: v.date_updated },
  hidden: v,
}))

const tags = ['email accounts']
const schemas = crudSchemas(tags, emailAccountSchema)

const identitySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'The name recipients see; blank by default.' })),
    email: Type.String(),
  },
  { additionalProperties: false },
)
const identitiesSchema = Type.Array(identitySchema, {
  description:
    'Who the user may send as through this account. The account’s own address is always one: when missing it is ' +
    'added first, named after the user. The first is the `default_identity`. A link is emailed to each new ' +
    'address (through the account’s SMTP server): until it is followed, the address neither receives mail nor may ' +
    'be sent as. An address another account has verified is refused.',
})
const hostSchema = Type.String({ description: 'A host name or an IP address, without a scheme or port.' })
const portSchema = Type.Integer({ description: '1 to 65535.' })
const usernameSchema = Type.Union([Type.String(), Type.Null()], { description: 'Null or blank: no login.' })
const passwordSchema = Type.Union([Type.String(), Type.Null()], {
  description:
    'Write-only: stored encrypted under the server’s `LEADLINE_SECRET_KEY` (refused when it has none) and never ' +
    'shown; the view says `has_password`. Null or blank removes it.',
})
const useSslSchema = Type.Boolean({
  description: 'TLS from the start of the connection (SMTPS, usually port 465); false: plain, upgraded by STARTTLS.',
})

const createBody = Type.Object(
  {
    user_id: Type.Optional(Type.String({ description: 'A member of your organization; the caller by default.' })),
    email: Type.String({
      description:
        'The address the account sends as; one account’s in the whole server. Set by an admin it is verified at ' +
        'once; set by a user, a link is emailed to it, and it neither receives nor is sent as until followed.',
    }),
    identities: Type.Optional(identitiesSchema),
    smtp: Type.Object(
      {
        host: hostSchema,
        port: portSchema,
        username: Type.Optional(usernameSchema),
        password: Type.Optional(passwordSchema),
        use_ssl: Type.Optional({ ...useSslSchema, description: `${useSslSchema.description} Defaults to true.` }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

const updateBody = Type.Object(
  {
    user_id: Type.Optional(Type.String({ description: 'Move the account to another member (admin).' })),
    email: Type.Optional(Type.String()),
    identities: Type.Optional(identitiesSchema),
    smtp: Type.Optional(
      Type.Object(
        {
          host: Type.Optional(hostSchema),
          port: Type.Optional(portSchema),
          username: Type.Optional(usernameSchema),
          password: Type.Optional(passwordSchema),
          use_ssl: Type.Optional(useSslSchema),
        },
        { additionalProperties: false, description: 'Only the settings sent change; a password not sent is kept.' },
      ),
    ),
  },
  { additionalProperties: false, description: 'Only the fields sent change.' },
)

const listQuery = Type.Composite([
  listQuerySchema(),
  Type.Object({
    user_id: Type.Optional(Type.String({ description: 'Only this user’s accounts (admins; users see only theirs).' })),
  }),
])

/** The caller may manage `userId`'s accounts: their own, or anyone's as an admin. */
function requireManager(me: KeyOwner, userId: string): void {
  if (me.role !== 'admin' && userId !== me.userId) {
    throw new ForbiddenError('Only an admin can manage the email accounts of other users.')
  }
}

/** A request without a body is read as `{}` (a body whose fields are all optional). */
function noBodyAsEmpty(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  request.body ??= {}
  done()
}

function withIdentityNames(identities: { name?: string | undefined; email: string }[] | undefined) {
  return identities?.map((identity) => ({ name: identity.name ?? '', email: identity.email }))
}

export const emailAccountRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, config, resolve }) => {
  /** The account of the caller's organization, if the caller may manage it (404, then 403). */
  async function managedAccount(tx: Db, me: KeyOwner, id: string): Promise<EmailAccountTable> {
    const row = found(await findEmailAccountRow(tx, me.organizationId, id), 'Email account')
    requireManager(me, row.user_id)
    return row
  }

  /** A refused address as a field error on the field that named it (`email` or `identities.N.email`). */
  async function takenAddress(
    failure: unknown,
    asked: { email: string; identities?: { email: string }[] | undefined },
  ): Promise<never> {
    const error = await explainAddressConflict(db, failure)
    if (error instanceof DuplicateEmailAccountError) {
      throw ValidationError.field('email', 'Your organization already has an email account for this address.')
    }
    if (!(error instanceof AddressTakenError)) throw error
    const index = (asked.identities ?? []).findIndex((i) => i.email.trim().toLowerCase() === error.address)
    const field =
      asked.email.trim().toLowerCase() === error.address || index < 0 ? 'email' : `identities.${index}.email`
    // Another organization's account is not named: the address is in use, nothing more.
    throw ValidationError.field(
      field,
      error.sameOrganization
        ? 'Your organization already has an email account for this address.'
        : 'This address is in use by another email account.',
    )
  }

  app.get(
    '/email_account/',
    schemas.listBy('The email accounts of your organization (admin), or your own (user)', listQuery),
    async (request) => {
      const me = caller(request)
      const asked = request.query.user_id
      if (me.role !== 'admin' && asked !== undefined && asked !== me.userId) return { has_more: false, data: [] }
      const userId = me.role === 'admin' ? asked : me.userId
      return listPageViews(emailAccountsQuery(db, me.organizationId, userId), request.query, (rows) =>
        emailAccountViews(db, rows),
      )
    },
  )

  app.get(
    '/email_account/:id/',
    schemas.get('One email account: yours, or any of your organization’s as an admin'),
    async (request) => oneEmailAccountView(db, await managedAccount(db, caller(request), request.params.id)),
  )

  app.post(
    '/email_account/',
    schemas.create('Add an email account: for yourself, or for any member as an admin (answers 200)', createBody),
    async (request) => {
      const me = caller(request)
      const body = request.body
      const userId = body.user_id ?? me.userId
      requireManager(me, userId)
      const fields = await checkedForMember(db, me.organizationId, userId, {
        email: body.email,
        identities: withIdentityNames(body.identities) ?? [],
        smtp: {
          host: body.smtp.host,
          port: body.smtp.port,
          username: body.smtp.username ?? null,
          use_ssl: body.smtp.use_ssl ?? true,
        },
      })
      const password = checkedPassword(body.smtp.password, config.secretBox) ?? null
      // The own address an admin sets is trusted (decision 0038); any other address waits for its link.
      const trusted = me.role === 'admin' ? [fields.email] : []
      const now = formatTimestamp(clock.now())
      return db
        .transaction()
        .execute(async (tx) => {
          const row = await insertEmailAccount(
            tx,
            config.secretBox,
            { organizationId: me.organizationId, userId, fields, password, trusted },
            { actorId: me.userId, now },
          )
          const view = await oneEmailAccountView(tx, row)
          await recordEvents(tx, eventContext(request, now), [accountEvent(view, 'created')])
          return view
        })
        .catch((error: unknown) => takenAddress(error, body))
    },
  )

  app.put(
    '/email_account/:id/',
    schemas.update('Change an email account: yours, or any as an admin', updateBody),
    async (request) => {
      const me = caller(request)
      const body = request.body
      const row = await db
        .transaction()
        .execute(async (tx) => {
          const before = await managedAccount(tx, me, request.params.id)
          const userId = body.user_id ?? before.user_id
          requireManager(me, userId)
          const stored = await oneEmailAccountView(tx, before)
          const email = body.email ?? before.email
          const fields = await checkedForMember(tx, me.organizationId, userId, {
            email,
            identities:
              withIdentityNames(body.identities) ??
              identitiesForNewAddress(stored.identities, before.email, email.trim().toLowerCase()),
            smtp: {
              host: body.smtp?.host ?? stored.smtp.host,
              port: body.smtp?.port ?? stored.smtp.port,
              username: body.smtp?.username === undefined ? stored.smtp.username : body.smtp.username,
              use_ssl: body.smtp?.use_ssl ?? stored.smtp.use_ssl,
            },
          })
          const password = checkedPassword(body.smtp?.password, config.secretBox)
          const trusted = me.role === 'admin' && fields.email !== before.email ? [fields.email] : []
          const now = formatTimestamp(clock.now())
          const after = await updateEmailAccount(
            tx,
            config.secretBox,
            before,
            { userId, fields, password, trusted },
            { actorId: me.userId, now },
          )
          const view = await oneEmailAccountView(tx, after)
          await recordEvents(tx, eventContext(request, now), [accountEvent(view, 'updated', stored)])
          return view
        })
        .catch((error: unknown) => takenAddress(error, { email: body.email ?? '', identities: body.identities }))
      return row
    },
  )

  app.post(
    '/email_account/:id/send_verification/',
    {
      schema: {
        tags,
        summary: 'Email the verification link of an address of the account again',
        description:
          'The address (the account’s own or an identity’s) must be unverified. A new link replaces the one before. ' +
          'At most one link a minute to an address, and ten an hour from an account: 429 with `Retry-After` beyond.',
        params: idParams,
        body: Type.Object(
          { email: Type.String({ description: 'The address to verify.' }) },
          { additionalProperties: false },
        ),
        response: { 200: emailAccountSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const row = await db.transaction().execute(async (tx) => {
        const account = await managedAccount(tx, me, request.params.id)
        await resendVerificationLink(
          tx,
          {
            organizationId: me.organizationId,
            accountId: account.id,
            address: request.body.email.trim().toLowerCase(),
            field: 'email',
          },
          clock.now(),
        )
        return account
      })
      return oneEmailAccountView(db, row)
    },
  )

  app.post(
    '/email_account/:id/send_test/',
    {
      schema: {
        tags,
        summary: 'Send a test email through the account’s SMTP server, and see what the server answered (Leadline)',
        description:
          'Sends a short email at once, to the account’s own address or to `to`, through the account’s SMTP ' +
          'server, under the rules every send follows (the outbound guard, `LEADLINE_SMTP_ALLOW_HOSTS`, a time ' +
          'limit). A diagnostic: the answer is 200 whether the server took the email (`ok: true` and its ' +
          '`response` line) or not (`ok: false` and the server’s refusal or why it could not be reached). The ' +
          'outcome becomes the account’s `last_error`, as a real send’s does. Yours, or any as an admin.',
        params: idParams,
        body: Type.Object(
          { to: Type.Optional(Type.String({ description: 'One address; the account’s own by default.' })) },
          { additionalProperties: false, description: 'Optional: no body sends to the account’s own address.' },
        ),
        response: {
          200: Type.Union([
            Type.Object({
              ok: Type.Literal(true),
              response: Type.String({ description: 'The SMTP server’s answer to the message.' }),
            }),
            Type.Object({
              ok: Type.Literal(false),
              error: Type.String({ description: 'What the server answered, or why it could not be reached.' }),
            }),
          ]),
        },
      },
      preValidation: noBodyAsEmpty,
    },
    async (request) => {
      const me = caller(request)
      const asked = request.body.to
      const to = asked === undefined || hasControlCharacter(asked) ? undefined : parseAddress(asked.trim())
      if (asked !== undefined && to === undefined) throw ValidationError.field('to', 'Enter one email address.')
      const account = await managedAccount(db, me, request.params.id)
      return sendTestEmail(
        { db, clock, config, resolve },
        { organizationId: me.organizationId, id: account.id },
        to?.email,
      )
    },
  )

  app.post(
    '/email_account/verify_identity/',
    {
      schema: {
        tags,
        summary: 'Follow the link emailed to an address: the address is verified',
        description:
          'The token of the link emailed to an address of an email account (`…/verify-email?token=…` in the web ' +
          'app). Only the account’s user may follow it; it works once, for 24 hours. Answers the address verified ' +
          'and its account.',
        body: Type.Object({ token: Type.String() }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            email: Type.String({ description: 'The address verified.' }),
            email_account: emailAccountSchema,
          }),
        },
      },
    },
    async (request) => {
      const me = caller(request)
      const verified = await db
        .transaction()
        .execute((tx) => verifyAddress(tx, request.body.token, me, clock.now()))
        .catch((error: unknown) => {
          // Another account verified the address between the link and now.
          if (isUniqueViolation(error))
            throw ValidationError.field('token', 'This address is in use by another email account.')
          throw error
        })
      const row = found(await findEmailAccountRow(db, me.organizationId, verified.accountId), 'Email account')
      return { email: verified.address, email_account: await oneEmailAccountView(db, row) }
    },
  )

  app.delete(
    '/email_account/:id/',
    schemas.delete('Remove an email account: yours, or any as an admin'),
    async (request) => {
      const me = caller(request)
      await db.transaction().execute(async (tx) => {
        const row = await managedAccount(tx, me, request.params.id)
        const view = await oneEmailAccountView(tx, row)
        await deleteEmailAccount(tx, me.organizationId, row.id)
        await recordEvents(tx, eventContext(request, formatTimestamp(clock.now())), [accountEvent(view, 'deleted')])
      })
      return {}
    },
  )
}
