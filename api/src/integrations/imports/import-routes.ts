import { Readable } from 'node:stream'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { AuditAction } from '@leadline/shared/audit-log-schema'
import { listEnvelopeSchema } from '@leadline/shared/list'
import { IMPORT_BUSY_STATUSES, importSchema, suggestMapping, type ImportStatus } from '@leadline/shared/import-schema'
import type { Deps } from '../../crm/deps.js'
import { deletedSchema, idParams } from '../../platform/http/crud-routes.js'
import { found } from '../../platform/data/find-or-404.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { HttpError, ValidationError } from '../../platform/http/errors.js'
import { fetchPage, listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import { newId } from '../../platform/security/ids.js'
import { bytesText, hasControlCharacter, NO_CONTROL_CHARACTERS } from '../../platform/text/text.js'
import { listCustomFieldDefs } from '../../crm/custom-fields/custom-values.js'
import { stringify } from 'csv-stringify'
import { escapeFormula } from '../exports/export-rows.js'
import { auditContext, recordAudit } from '../events/audit-repo.js'
import { contentDisposition } from '../../email/attachments/email-attachment-routes.js'
import { receiveFile } from './import-file.js'
import { importRequested } from './import-worker.js'
import { checkMapping, fieldsById, importUpdateBody, uploadQuery } from './import-input.js'
import {
  DEFAULT_DUPLICATE_RULE,
  deleteImports,
  failedPass,
  findVisibleImport,
  importView,
  NO_COUNTS,
  visibleImports,
  type ImportRow,
} from './import-repo.js'

// CSV imports (decision 0053), Leadline's own resource: a file is uploaded (streamed in, never held whole), its
// columns mapped and its duplicate rule chosen, then checked and run by the import worker of some api process.

const tags = ['imports']
const WHO = 'Any member may import; a member sees their own imports, an admin every import of the organization.'
const listResponse = listEnvelopeSchema(importSchema)
/** The upload's body is the file itself, read as a stream: the schema only documents it. */
const fileBody = Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The file’s bytes.' })

/** An import in one of `allowed`, or a 400 saying what it is doing. */
function expectStatus(row: ImportRow, allowed: readonly ImportStatus[], action: string): void {
  if (row.status !== 'uploading' && allowed.includes(row.status)) return
  throw new HttpError(400, `The import is ${row.status}: it can be ${action} only while ${allowed.join(' or ')}.`)
}

/** The most bytes of a refused upload read (and dropped) so that its answer arrives; beyond, the connection closes. */
const DISCARD_MAX = 1024 * 1024

async function discardRest(body: Readable, reply: { header(name: string, value: string): unknown }): Promise<void> {
  if (body.readableEnded) return
  reply.header('connection', 'close')
  let dropped = 0
  for await (const piece of body as AsyncIterable<Buffer>) {
    dropped += piece.length
    if (dropped > DISCARD_MAX) return
  }
}

export const importRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, deps) => {
  const { db, clock, config } = deps
  const maxBytes = config.importMaxBytes

  const customFields = async (organizationId: string) => {
    const [lead, contact, opportunity] = await Promise.all([
      listCustomFieldDefs(db, organizationId, 'lead'),
      listCustomFieldDefs(db, organizationId, 'contact'),
      listCustomFieldDefs(db, organizationId, 'opportunity'),
    ])
    return { lead, contact, opportunity }
  }
  const visible = async (me: KeyOwner, id: string) => found(await findVisibleImport(db, me, id), 'Import')

  // The file streams in as the request's body, of any type, up to LEADLINE_IMPORT_MAX_BYTES: in a context of its
  // own, every body is handed over unread.
  await app.register(async (context) => {
    const upload = context.withTypeProvider<TypeBoxTypeProvider>()
    upload.removeAllContentTypeParsers()
    upload.addContentTypeParser('*', (_request, payload, done) => {
      done(null, payload)
    })
    upload.post(
      '/import/',
      {
        schema: {
          tags,
          summary: `Upload a CSV file to import (answers the import, \`uploaded\`, with its columns, preview and suggested mapping). ${WHO}`,
          description:
            `The request body is the file’s bytes (any \`Content-Type\`), \`filename\` in the query string; up to ${bytesText(maxBytes)} ` +
            '(`LEADLINE_IMPORT_MAX_BYTES`; a 413 over it). The file may be UTF-8 (with or without a BOM), UTF-16 LE or ' +
            'BE with a BOM, or Windows-1252, delimited by `,` `;` tab or `|`. An empty file, a header without data ' +
            'rows, a file that is not a CSV (an Excel workbook, a zip, a PDF, NUL bytes) or in another encoding is ' +
            'a 400 on `file`; nothing of it is kept.',
          consumes: ['*/*'],
          querystring: uploadQuery,
          body: fileBody,
          response: { 201: importSchema },
        },
      },
      async (request, reply) => {
        const me = caller(request)
        const filename = request.query.filename.trim()
        if (filename === '') throw ValidationError.field('filename', 'This field is required.')
        if (hasControlCharacter(filename)) throw ValidationError.field('filename', NO_CONTROL_CHARACTERS)
        const declared = Number(request.headers['content-length'] ?? 0)
        if (declared > maxBytes) {
          throw new HttpError(413, `The file is larger than ${bytesText(maxBytes)} (LEADLINE_IMPORT_MAX_BYTES).`)
        }
        const stream = request.body instanceof Readable ? request.body : request.raw
        // Read without destroying it when a refusal stops the reading: the rest is dropped before answering.
        const body = stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>
        const id = newId('import')
        const at = formatTimestamp(clock.now())
        // Stored as `uploading` (never shown) while it streams in; deleted with its chunks if it is refused.
        await db
          .insertInto('data_import')
          .values({
            id,
            organization_id: me.organizationId,
            created_by: me.userId,
            filename,
            size: 0,
            encoding: 'utf-8',
            delimiter: ',',
            columns: '[]',
            preview: '[]',
            n_rows: 0,
            mapping: '{}',
            duplicate_rule: JSON.stringify(DEFAULT_DUPLICATE_RULE),
            status: 'uploading',
            rows_done: 0,
            check_result: null,
            counts: JSON.stringify(NO_COUNTS),
            error: null,
            attempts: 0,
            lease_owner: null,
            lease_until: null,
            date_created: at,
            date_updated: at,
          })
          .execute()
        try {
          const file = await receiveFile(db, { importId: id, organizationId: me.organizationId }, body, maxBytes)
          const fields = await customFields(me.organizationId)
          const mapping = suggestMapping(file.columns, [...fields.lead, ...fields.contact, ...fields.opportunity])
          const row = await db.transaction().execute(async (tx) => {
            const now = formatTimestamp(clock.now())
            const uploaded = await tx
              .updateTable('data_import')
              .set({
                size: file.size,
                encoding: file.encoding,
                delimiter: file.delimiter,
                columns: JSON.stringify(file.columns),
                preview: JSON.stringify(file.preview),
                n_rows: file.nRows,
                mapping: JSON.stringify(mapping),
                status: 'uploaded',
                date_updated: now,
              })
              .where('id', '=', id)
              .returningAll()
              .executeTakeFirstOrThrow()
            await recordAudit(tx, auditContext(request, now), [
              {
                action: 'import_created',
                objectType: 'import',
                objectId: id,
                details: { filename, rows: file.nRows, size: file.size },
              },
            ])
            return uploaded
          })
          return await reply.code(201).send(importView(row))
        } catch (error) {
          await db.transaction().execute((tx) => deleteImports(tx, [id]))
          await discardRest(stream, reply)
          throw error
        }
      },
    )
  })

  app.get(
    '/import/',
    {
      schema: {
        tags,
        summary: `List imports, newest first. ${WHO}`,
        querystring: listQuerySchema(),
        response: { 200: listResponse },
      },
    },
    async (request) => {
      const query = visibleImports(db, caller(request)).orderBy('date_created', 'desc').orderBy('id', 'desc')
      const page = await fetchPage(query, request.query)
      return { has_more: page.has_more, data: page.data.map(importView) }
    },
  )

  app.get(
    '/import/:id/',
    {
      schema: {
        tags,
        summary: `One import: its status, progress, dry-run check and counts. ${WHO}`,
        params: idParams,
        response: { 200: importSchema },
      },
    },
    async (request) => importView(await visible(caller(request), request.params.id)),
  )

  app.put(
    '/import/:id/',
    {
      schema: {
        tags,
        summary: `Change an import’s mapping or duplicate rule, while it is \`uploaded\` or \`checked\` (it is \`uploaded\` again, its check cleared). ${WHO}`,
        params: idParams,
        body: importUpdateBody,
        response: { 200: importSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const row = await visible(me, request.params.id)
      expectStatus(row, ['uploaded', 'checked'], 'changed')
      const { mapping, duplicate_rule: rule } = request.body
      if (mapping !== undefined) {
        checkMapping(mapping, JSON.parse(row.columns) as string[], fieldsById(await customFields(me.organizationId)))
      }
      const updated = await db.transaction().execute(async (tx) => {
        const changed = await tx
          .updateTable('data_import')
          .set({
            ...(mapping === undefined ? {} : { mapping: JSON.stringify(mapping) }),
            ...(rule === undefined ? {} : { duplicate_rule: JSON.stringify(rule) }),
            status: 'uploaded',
            check_result: null,
            date_updated: formatTimestamp(clock.now()),
          })
          .where('id', '=', row.id)
          .where('status', 'in', ['uploaded', 'checked'])
          .returningAll()
          .executeTakeFirst()
        if (changed === undefined)
          throw new HttpError(400, 'The import’s job started meanwhile: it can no longer be changed.')
        await tx.deleteFrom('data_import_failure').where('import_id', '=', row.id).execute()
        return changed
      })
      return importView(updated)
    },
  )

  app.delete(
    '/import/:id/',
    {
      schema: {
        tags,
        summary: `Delete an import and its file (not what it imported), unless its job is under way. ${WHO}`,
        params: idParams,
        response: { 200: deletedSchema },
      },
    },
    async (request) => {
      const row = await visible(caller(request), request.params.id)
      if (IMPORT_BUSY_STATUSES.includes(row.status === 'uploading' ? 'uploaded' : row.status)) {
        throw new HttpError(400, `The import is ${row.status}: delete it once its job has ended.`)
      }
      await db.transaction().execute(async (tx) => {
        const still = await tx
          .selectFrom('data_import')
          .select('status')
          .where('id', '=', row.id)
          .where('status', 'not in', [...IMPORT_BUSY_STATUSES])
          .executeTakeFirst()
        if (still === undefined)
          throw new HttpError(400, 'The import’s job started meanwhile: delete it once it has ended.')
        await deleteImports(tx, [row.id])
      })
      return {}
    },
  )

  /**
   * Moves an import from one of `from` to `to` (its job then due), or a 400 saying why it cannot; a run and an undo,
   * which change leads, are recorded in the audit log in the same transaction (a dry run writes nothing).
   */
  async function startJob(
    request: FastifyRequest,
    id: string,
    job: { from: readonly ImportStatus[]; to: ImportStatus; action: string; audit: AuditAction | undefined },
  ) {
    const { from, to, action } = job
    const row = await visible(caller(request), id)
    expectStatus(row, from, action)
    const moved = await db.transaction().execute(async (tx) => {
      const at = formatTimestamp(clock.now())
      const updated = await tx
        .updateTable('data_import')
        .set({
          status: to,
          rows_done: 0,
          attempts: 0,
          error: null,
          lease_owner: null,
          lease_until: null,
          ...(to === 'checking' ? { check_result: null } : {}),
          date_updated: at,
        })
        .where('id', '=', row.id)
        .where('status', 'in', [...from])
        .returningAll()
        .executeTakeFirst()
      if (updated === undefined) throw new HttpError(400, `The import is no longer ${from.join(' or ')}.`)
      if (to === 'checking') {
        await tx.deleteFrom('data_import_failure').where('import_id', '=', row.id).where('pass', '=', 'check').execute()
      }
      if (job.audit !== undefined) {
        await recordAudit(tx, auditContext(request, at), [
          {
            action: job.audit,
            objectType: 'import',
            objectId: row.id,
            details: { filename: row.filename, rows: row.n_rows },
          },
        ])
      }
      return updated
    })
    importRequested()
    return importView(moved)
  }

  const jobs: [string, string, readonly ImportStatus[], ImportStatus, string, AuditAction | undefined][] = [
    [
      'dry_run',
      'Check every row as a run would, writing nothing (`checking`, then `checked` with `check`: problems per row, counted, the first 100 kept; and a failed-rows CSV).',
      ['uploaded', 'checked'],
      'checking',
      'checked',
      undefined,
    ],
    [
      'run',
      'Run the import as a background job (`queued`, `running` as `progress.rows_done` advances, then `done` with `counts`, or `error`).',
      ['uploaded', 'checked'],
      'queued',
      'run',
      'import_run',
    ],
    [
      'undo',
      'Undo a done import (`undoing`, then `undone`): the leads it created are deleted, the leads it updated put back as they were (fields and custom values) without the contacts, addresses and opportunities it added. Not possible once the import is purged with the event log (`LEADLINE_EVENT_RETENTION_DAYS`).',
      ['done'],
      'undoing',
      'undone',
      'import_undo',
    ],
  ]
  for (const [path, summary, from, to, action, audit] of jobs) {
    app.post(
      `/import/:id/${path}/`,
      { schema: { tags, summary: `${summary} ${WHO}`, params: idParams, response: { 200: importSchema } } },
      async (request) => startJob(request, request.params.id, { from, to, action, audit }),
    )
  }

  app.get(
    '/import/:id/failed_rows/',
    {
      schema: {
        tags,
        summary: `The rows an import could not take, as CSV: the file’s header and a \`reason\` column. ${WHO}`,
        description:
          'The run’s failed rows once it ran, else the dry run’s. Cells that a spreadsheet would run as a formula ' +
          "begin with `'`, as exports write them.",
        params: idParams,
      },
    },
    async (request, reply) => {
      const row = await visible(caller(request), request.params.id)
      const pass = failedPass(row)
      const columns = JSON.parse(row.columns) as string[]
      async function* records() {
        yield [...columns, 'reason'].map(escapeFormula)
        let after = 0
        for (;;) {
          const part = await db
            .selectFrom('data_import_failure')
            .select(['row', 'cells', 'reason'])
            .where('import_id', '=', row.id)
            .where('pass', '=', pass)
            .where('row', '>', after)
            .orderBy('row')
            .limit(500)
            .execute()
          const last = part.at(-1)
          if (last === undefined) return
          after = last.row
          for (const failure of part) {
            const cells = JSON.parse(failure.cells) as string[]
            const padded = [...cells, ...Array<string>(Math.max(0, columns.length - cells.length)).fill('')]
            yield [...padded, failure.reason].map(escapeFormula)
          }
        }
      }
      const name = `${row.filename.replace(/\.csv$/i, '')}-failed-rows.csv`
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', contentDisposition(name))
        .header('x-content-type-options', 'nosniff')
        .send(Readable.from(records()).pipe(stringify()))
    },
  )
}
