import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Static, TSchema } from '@sinclair/typebox'
import { bulkDeleteSchema, bulkEditSchema } from '@leadline/shared/bulk-action-schema'
import type { Deps } from '../../crm/deps.js'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import { found } from '../../platform/data/find-or-404.js'
import { readInChunks } from '../../platform/data/collections.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { crudSchemas, idParams, listPage } from '../../platform/http/crud-routes.js'
import type { ListQuery } from '../../platform/http/list.js'
import { HttpError, ValidationError } from '../../platform/http/errors.js'
import { caller } from '../../platform/http/request-context.js'
import { leadSearchIds } from '../../crm/leads/lead-search.js'
import {
  changeBody,
  deleteBody,
  editBody,
  editParamsOf,
  selectionOf,
  type EditParams,
  type Selection,
} from './bulk-action-input.js'
import { auditContext, recordAudit } from '../events/audit-repo.js'
import {
  bulkDeleteView,
  bulkEditView,
  findVisibleBulkAction,
  insertBulkAction,
  visibleBulkActions,
  type BulkActionRow,
  type BulkKind,
} from './bulk-action-repo.js'
import { bulkActionRequested } from './bulk-action-worker.js'

// `/bulk_action/edit/` and `/bulk_action/delete/`, Close's bulk actions on leads (decision 0057). POST checks what is
// asked (the leads' query, the status or field and value) and answers the job `created`; a worker in some api process
// runs it; GET tells its `status` and progress. Leadline adds `POST …/{id}/undo/` for an edit.

/** The most bulk actions of one organization under way at once: asking for more waits for one to end (a 429). */
export const BULK_UNDER_WAY_MAX = 5
const UNDER_WAY = ['created', 'loading', 'processing', 'resuming', 'undoing']
const WHO =
  'Any member may act on leads in bulk, as on one lead; a member sees their own bulk actions, an admin every one of ' +
  `the organization's. At most ${String(BULK_UNDER_WAY_MAX)} of an organization are under way at once (a 429 beyond).`

export const bulkActionRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock, meta }) => {
  async function visibleOr404(request: FastifyRequest, kind: BulkKind, id: string, tx = db) {
    return found(
      await findVisibleBulkAction(tx, caller(request), kind, id),
      kind === 'edit' ? 'Bulk edit' : 'Bulk delete',
    )
  }

  /** Checks the leads asked for as the job will read them: the query compiles, every id is a lead of the caller's. */
  async function checkSelection(request: FastifyRequest, me: KeyOwner, selection: Selection): Promise<void> {
    if (selection.query !== null && selection.query !== '') {
      await leadSearchIds(db, {
        dialect,
        organizationId: me.organizationId,
        query: selection.query,
        now: clock.now(),
        tzOffsetHours: request.tzOffsetHours,
      })
    }
    const ids = selection.lead_ids
    if (ids === null) return
    const known = new Set(
      (
        await readInChunks(ids, (part) =>
          db
            .selectFrom('lead')
            .select('id')
            .where('organization_id', '=', me.organizationId)
            .where('id', 'in', part)
            .execute(),
        )
      ).map((r) => r.id),
    )
    const unknown = ids.find((id) => !known.has(id))
    if (unknown !== undefined) {
      throw ValidationError.field('lead_ids', `Not a lead of your organization: "${unknown.slice(0, 64)}".`)
    }
  }

  async function start(
    request: FastifyRequest,
    kind: BulkKind,
    selection: Selection,
    edit: EditParams | null,
  ): Promise<BulkActionRow> {
    const me = caller(request)
    await checkSelection(request, me, selection)
    return db.transaction().execute(async (tx) => {
      const underWay = await tx
        .selectFrom('bulk_action')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('organization_id', '=', me.organizationId)
        .where('status', 'in', UNDER_WAY)
        .executeTakeFirstOrThrow()
      if (Number(underWay.n) >= BULK_UNDER_WAY_MAX) {
        throw new HttpError(
          429,
          `At most ${String(BULK_UNDER_WAY_MAX)} bulk actions of an organization can be under way at once: ask again when one is done.`,
          { 'retry-after': '10' },
        )
      }
      const now = formatTimestamp(clock.now())
      const row = await insertBulkAction(tx, {
        kind,
        me,
        selection,
        edit,
        tzOffsetHours: request.tzOffsetHours,
        now,
      })
      if (kind === 'delete') {
        const selected = {
          query: selection.query,
          lead_ids: selection.lead_ids === null ? null : selection.lead_ids.length,
          every_lead: selection.s_query !== null,
        }
        await recordAudit(tx, auditContext(request, now), [
          { action: 'bulk_delete', objectType: 'bulk_delete', objectId: row.id, details: selected },
        ])
      }
      return row
    })
  }

  /** Moves a job from one of `from` to `to` (as its caller, now), or answers a 409 saying why it cannot. */
  async function move(request: FastifyRequest, id: string, kind: BulkKind, from: string[], to: string, why: string) {
    const me = caller(request)
    return db.transaction().execute(async (tx) => {
      const row = await visibleOr404(request, kind, id, tx)
      if (!from.includes(row.status)) throw new HttpError(409, `${why} (it is ${row.status}).`)
      return tx
        .updateTable('bulk_action')
        .set({ status: to, updated_by: me.userId, date_updated: formatTimestamp(clock.now()) })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow()
    })
  }

  /** GET (list and one) and PUT (pause, resume) of one kind; typed by hand, as `readRoutes` is, for either kind. */
  function routesOf(
    kind: BulkKind,
    schema: TSchema,
    view: (row: BulkActionRow) => unknown,
    names: { path: string; one: string; many: string },
  ) {
    const schemas = crudSchemas(['bulk actions'], schema)
    const plain = app as unknown as FastifyInstance
    const idOf = (request: FastifyRequest) => (request.params as { id: string }).id
    plain.get(names.path, schemas.list(`Your ${names.many}, newest first. ${WHO}`), async (request) =>
      listPage(
        visibleBulkActions(db, caller(request), kind).orderBy('date_created', 'desc').orderBy('id', 'desc'),
        request.query as ListQuery,
        view,
      ),
    )
    plain.get(`${names.path}:id/`, schemas.get(`One ${names.one}: its status and progress`), async (request) =>
      view(await visibleOr404(request, kind, idOf(request))),
    )
    plain.put(
      `${names.path}:id/`,
      schemas.update(
        `Pause a ${names.one} under way (\`{"status": "paused"}\`) or resume a paused one (\`"resuming"\`)`,
        changeBody,
      ),
      async (request) => {
        const asked = (request.body as Static<typeof changeBody>).status
        const row =
          asked === 'paused'
            ? await move(
                request,
                idOf(request),
                kind,
                ['created', 'loading', 'processing', 'resuming'],
                'paused',
                'Only a job under way can be paused',
              )
            : await move(request, idOf(request), kind, ['paused'], 'resuming', 'Only a paused job can be resumed')
        if (asked === 'resuming') bulkActionRequested()
        return view(row)
      },
    )
  }

  routesOf('edit', bulkEditSchema, bulkEditView, { path: '/bulk_action/edit/', one: 'bulk edit', many: 'bulk edits' })
  routesOf('delete', bulkDeleteSchema, bulkDeleteView, {
    path: '/bulk_action/delete/',
    one: 'bulk delete',
    many: 'bulk deletes',
  })

  app.post(
    '/bulk_action/edit/',
    {
      schema: {
        tags: ['bulk actions'],
        summary:
          'Edit leads in bulk (answers 200, `created`): set their status, or set or clear a custom field. ' + WHO,
        body: editBody,
        response: { 200: bulkEditSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const organization = await meta.require(me.organizationId)
      const edit = editParamsOf(request.body, {
        statusIds: new Set(organization.leadStatusLabels.keys()),
        defs: organization.customFields.lead,
        memberUserIds: new Set(organization.memberNames.keys()),
      })
      const row = await start(request, 'edit', selectionOf(request.body), edit)
      bulkActionRequested()
      return bulkEditView(row)
    },
  )

  app.post(
    '/bulk_action/delete/',
    {
      schema: {
        tags: ['bulk actions'],
        summary: 'Delete leads in bulk, with everything under them (answers 200, `created`). ' + WHO,
        body: deleteBody,
        response: { 200: bulkDeleteSchema },
      },
    },
    async (request) => {
      const row = await start(request, 'delete', selectionOf(request.body), null)
      bulkActionRequested()
      return bulkDeleteView(row)
    },
  )

  app.post(
    '/bulk_action/edit/:id/undo/',
    {
      schema: {
        tags: ['bulk actions'],
        summary:
          'Undo a bulk edit (Leadline): each lead it changed that still holds what it wrote gets back what it had; ' +
          'a lead changed since keeps its newer value. A job under way is paused first (PUT `status` `paused`).',
        params: idParams,
        response: { 200: bulkEditSchema },
      },
    },
    async (request) => {
      const row = await move(
        request,
        request.params.id,
        'edit',
        ['done', 'error', 'paused'],
        'undoing',
        'Only a done, failed or paused edit can be undone',
      )
      bulkActionRequested()
      return bulkEditView(row)
    },
  )
}
