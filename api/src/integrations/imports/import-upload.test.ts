import { parse as parseSync } from 'csv-parse/sync'
import { IMPORT_RECORD_MAX, parseOptions } from './import-file.js'
import { request } from 'node:http'
import { Readable } from 'node:stream'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { basicAuth, call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// Uploads over HTTP, on the database LEADLINE_TEST_DB names: each encoding, every refusal (nothing of a refused file
// stays), the columns, preview and suggested mapping, and the mapping's checks, visibility and deletion.

let ctx: TestContext
const rep = () => ctx.org.member.key
const admin = () => ctx.org.admin.key
const LIMIT = 4096
let industryField = ''
let otherOrgField = ''

beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_IMPORT_MAX_BYTES: String(LIMIT) } })
  industryField = (
    await call(ctx.app, admin(), 'POST', '/custom_field/lead/', { body: { name: 'Industry', type: 'text' } })
  ).json<{ id: string }>().id
  otherOrgField = (
    await call(ctx.app, ctx.other.admin.key, 'POST', '/custom_field/lead/', { body: { name: 'Size', type: 'text' } })
  ).json<{ id: string }>().id
})
afterAll(async () => {
  await ctx.close()
})

/** Uploads `bytes` as the request body; a Readable streams them in small pieces. */
async function upload(
  bytes: Buffer | Readable,
  key = rep(),
  filename = 'leads.csv',
  contentType = 'text/csv',
): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'POST',
    url: `/api/v1/import/?filename=${encodeURIComponent(filename)}`,
    headers: { authorization: basicAuth(key), 'content-type': contentType },
    payload: bytes,
  })
}

interface Import {
  id: string
  status: string
  encoding: string
  delimiter: string
  columns: string[]
  preview: string[][]
  n_rows: number
  size: number
  mapping: Record<string, string>
  duplicate_rule: { match: string; action: string }
  check: unknown
  [key: string]: unknown
}

async function uploaded(bytes: Buffer | Readable, key = rep()): Promise<Import> {
  const res = await upload(bytes, key)
  expect(res.statusCode, res.body).toBe(201)
  return res.json<Import>()
}

async function storedImports(): Promise<number> {
  const row = await ctx.database.db
    .selectFrom('data_import')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  const chunks = await ctx.database.db
    .selectFrom('data_import_chunk')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(String(row.n)) * 1000 + Number(String(chunks.n))
}

function utf16(text: string, order: 'le' | 'be'): Buffer {
  const le = Buffer.from(`\ufeff${text}`, 'utf16le')
  if (order === 'le') return le
  const be = Buffer.alloc(le.length)
  for (let i = 0; i + 1 < le.length; i += 2) {
    be[i] = le[i + 1] ?? 0
    be[i + 1] = le[i] ?? 0
  }
  return be
}

const TEXT = 'Company,Email,Notes\nCafé Rouge,ann@cafe.example,première\nAcme,bob@acme.example,x\n'

describe('POST /import/', () => {
  it('takes each encoding and reads the same rows from it', async () => {
    const cp1252 = Buffer.from(
      TEXT.replace(/[éè]/g, (c) => (c === 'é' ? '\u0001' : '\u0002')),
      'latin1',
    )
    cp1252.forEach((b, i) => {
      if (b === 1) cp1252[i] = 0xe9
      if (b === 2) cp1252[i] = 0xe8
    })
    const cases: [Buffer, string][] = [
      [Buffer.from(TEXT, 'utf8'), 'utf-8'],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT, 'utf8')]), 'utf-8-bom'],
      [utf16(TEXT, 'le'), 'utf-16le'],
      [utf16(TEXT, 'be'), 'utf-16be'],
      [cp1252, 'windows-1252'],
    ]
    for (const [bytes, encoding] of cases) {
      const made = await uploaded(bytes)
      expect(made.encoding, encoding).toBe(encoding)
      expect(made.status).toBe('uploaded')
      expect(made.columns).toEqual(['Company', 'Email', 'Notes'])
      expect(made.preview).toEqual([
        ['Café Rouge', 'ann@cafe.example', 'première'],
        ['Acme', 'bob@acme.example', 'x'],
      ])
      expect(made.n_rows).toBe(2)
      expect(made.size).toBe(bytes.length)
      expect(made.mapping).toEqual({ Company: 'lead.name', Email: 'contact.email', Notes: 'opportunity.note' })
      expect(made.duplicate_rule).toEqual({ match: 'email', action: 'skip' })
    }
  })

  it('reads a file streamed in small pieces, a character cut between two of them', async () => {
    const bytes = Buffer.from(`Name;Città\n${'Zoë;Bärlin\n'.repeat(200)}`, 'utf8')
    const pieces = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7))
    const made = await uploaded(Readable.from(pieces))
    expect(made.delimiter).toBe(';')
    expect(made.encoding).toBe('utf-8')
    expect(made.n_rows).toBe(200)
    expect(made.preview[0]).toEqual(['Zoë', 'Bärlin'])
  })

  it('detects each delimiter from the header line, quotes, blank and repeated headers included', async () => {
    for (const d of [',', ';', '\t', '|']) {
      const made = await uploaded(Buffer.from(`"a${d === ',' ? ';' : ','}b"${d}Email${d}${d}Email\n1${d}2${d}3${d}4\n`))
      expect(made.delimiter, JSON.stringify(d)).toBe(d)
      expect(made.columns).toEqual([d === ',' ? 'a;b' : 'a,b', 'Email', 'Column 3', 'Email (2)'])
      expect(made.mapping).toEqual({ Email: 'contact.email' })
    }
  })

  it('suggests custom fields of the organization by name', async () => {
    const made = await uploaded(Buffer.from('Company,industry,Phone\nAcme,Retail,+14155550101\n'))
    expect(made.mapping).toEqual({ Company: 'lead.name', industry: `custom.${industryField}`, Phone: 'contact.phone' })
  })

  it('takes ragged rows: they are row problems, not a refusal', async () => {
    const made = await uploaded(Buffer.from('Company,Email\nAcme\nGlobex,g@globex.example,extra\n'))
    expect(made.preview).toEqual([['Acme'], ['Globex', 'g@globex.example', 'extra']])
  })

  it('refuses what is no CSV, or in no encoding it takes, with a 400 on file, and keeps nothing', async () => {
    const before = await storedImports()
    const xlsx = Buffer.concat([
      Buffer.from([0x50, 0x4b, 0x03, 0x04]),
      Buffer.alloc(26),
      Buffer.from('[Content_Types].xml'),
    ])
    const refusals: [Buffer, RegExp][] = [
      [Buffer.alloc(0), /empty/],
      [Buffer.from('\n\n  \n'), /empty/],
      [Buffer.from('Company,Email\n'), /has a header but no data rows/],
      [Buffer.from('Company,Email'), /has a header but no data rows/],
      [xlsx, /an Excel workbook: save it as CSV/],
      [Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('docs/readme.txt')]), /zip/],
      [Buffer.from('%PDF-1.7\n...'), /PDF/],
      [Buffer.from('Company\u0000,Email\nAcme,a@b.example\n'), /NUL/],
      [Buffer.concat([Buffer.from('Company\nCaf'), Buffer.from([0x81]), Buffer.from('\n')]), /Expected UTF-8/],
      [Buffer.concat([Buffer.from('Company\nZoë\nCaf'), Buffer.from([0xe9]), Buffer.from('\n')]), /mixes UTF-8/],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('A\n'), Buffer.from([0xe9, 0x0a])]), /BOM/],
      [Buffer.from(`${Array.from({ length: 501 }, (_, i) => `c${String(i)}`).join(',')}\n1\n`), /501 columns/],
      [Buffer.from(`${'x'.repeat(201)},b\n1,2\n`), /over 200 characters/],
      [Buffer.from('Company,Notes\nAcme,"never closed\n'), /not a CSV that can be read/],
    ]
    for (const [bytes, message] of refusals) {
      const res = await upload(bytes)
      expect(res.statusCode, `${message.source}: ${res.body}`).toBe(400)
      expect(res.json<{ 'field-errors': Record<string, string> }>()['field-errors'].file).toMatch(message)
    }
    expect(await storedImports()).toBe(before)
  })

  it('reads no row past IMPORT_RECORD_MAX, however long a quote left open runs', () => {
    const text = `Company,Notes\nAcme,"${'x'.repeat(IMPORT_RECORD_MAX + 10)}"\n`
    expect(() => parseSync(text, parseOptions(','))).toThrow(/max record size/i)
    expect(parseSync('Company,Notes\nAcme,"short"\n', parseOptions(','))).toEqual([
      ['Company', 'Notes'],
      ['Acme', 'short'],
    ])
  })

  it('refuses a file over LEADLINE_IMPORT_MAX_BYTES with a 413, streamed or declared, and keeps nothing', async () => {
    const before = await storedImports()
    const big = Buffer.from(`Company\n${'Acme Incorporated\n'.repeat(300)}`)
    const declared = await upload(big)
    expect(declared.statusCode).toBe(413)
    expect(declared.json()).toEqual({ error: expect.stringMatching(/LEADLINE_IMPORT_MAX_BYTES/) as unknown })
    const pieces = Array.from({ length: Math.ceil(big.length / 1000) }, (_, i) =>
      big.subarray(i * 1000, i * 1000 + 1000),
    )
    const streamed = await upload(Readable.from(pieces))
    expect(streamed.statusCode).toBe(413)
    expect(streamed.json<{ error: string }>().error).toMatch(/larger than 4 KiB/)
    expect(await storedImports()).toBe(before)
  })

  it('takes a body sent without a Content-Type', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/import/?filename=plain.csv',
      headers: { authorization: basicAuth(rep()) },
      payload: Buffer.from(TEXT),
    })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json<Import>().n_rows).toBe(2)
  })

  it('takes a file over real HTTP, its body a stream the route reads', async () => {
    const url = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    const bytes = Buffer.from(`Company,Email\n${'Acme,a@acme.example\n'.repeat(150)}`)
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${url}/api/v1/import/?filename=http.csv`,
        { method: 'POST', headers: { authorization: basicAuth(rep()), 'content-type': 'text/csv' } },
        (res) => {
          let body = ''
          res.on('data', (chunk: Buffer) => (body += chunk.toString()))
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body })
          })
        },
      )
      req.on('error', reject)
      req.end(bytes)
    })
    expect(answer.status, answer.body).toBe(201)
    expect(JSON.parse(answer.body)).toMatchObject({ n_rows: 150, size: bytes.length })
  })

  it('needs a filename', async () => {
    const res = await upload(Buffer.from(TEXT), rep(), ' ')
    expect(res.statusCode).toBe(400)
    expect(res.json<{ 'field-errors': Record<string, string> }>()['field-errors'].filename).toBeDefined()
  })
})

describe('GET, PUT and DELETE /import/{id}/', () => {
  it('shows a member their own imports, an admin every one, and another organization none', async () => {
    const mine = await uploaded(Buffer.from(TEXT))
    const admins = await uploaded(Buffer.from(TEXT), admin())
    const listed = (key: string) =>
      call(ctx.app, key, 'GET', '/import/', { query: { _limit: '100' } }).then((r) =>
        r.json<{ data: Import[] }>().data.map((i) => i.id),
      )
    expect(await listed(rep())).toContain(mine.id)
    expect(await listed(rep())).not.toContain(admins.id)
    expect(await listed(admin())).toEqual(expect.arrayContaining([mine.id, admins.id]))
    const newest = await listed(admin())
    expect(newest.indexOf(admins.id)).toBeLessThan(newest.indexOf(mine.id))
    expect(await listed(ctx.other.admin.key)).not.toContain(mine.id)
    expect((await call(ctx.app, rep(), 'GET', `/import/${admins.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, admin(), 'GET', `/import/${mine.id}/`)).statusCode).toBe(200)
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(ctx.app, ctx.other.admin.key, method, `/import/${mine.id}/`, {
        ...(method === 'PUT' ? { body: { duplicate_rule: { match: 'name', action: 'update' } } } : {}),
      })
      expect(res.statusCode, method).toBe(404)
      expect(res.json()).toEqual({ error: 'Import not found.' })
    }
    const page = await call(ctx.app, admin(), 'GET', '/import/', { query: { _limit: '1' } })
    expect(page.json<{ has_more: boolean; data: unknown[] }>()).toMatchObject({ has_more: true, data: [{}] })
  })

  it('checks a mapping column by column, and takes a good one with a duplicate rule', async () => {
    const made = await uploaded(
      Buffer.from('Company,Email,Web,Size,Extra,Industry\nAcme,a@acme.example,acme.example,3,x,y\n'),
    )
    const bad = await call(ctx.app, rep(), 'PUT', `/import/${made.id}/`, {
      body: {
        mapping: {
          Company: 'lead.name',
          Email: 'contact.email',
          Web: 'contact.email',
          Size: `custom.${otherOrgField}`,
          Extra: 'lead.nonsense',
          Missing: 'lead.url',
        },
      },
    })
    expect(bad.statusCode).toBe(400)
    expect(Object.keys(bad.json<{ 'field-errors': Record<string, string> }>()['field-errors']).sort()).toEqual([
      'mapping.Extra',
      'mapping.Missing',
      'mapping.Size',
      'mapping.Web',
    ])
    const good = await call(ctx.app, rep(), 'PUT', `/import/${made.id}/`, {
      body: {
        mapping: {
          Company: 'lead.name',
          Web: 'lead.url',
          Extra: 'new_custom_field',
          Industry: `custom.${industryField}`,
        },
        duplicate_rule: { match: 'url', action: 'update' },
      },
    })
    expect(good.statusCode, good.body).toBe(200)
    expect(good.json<Import>()).toMatchObject({
      status: 'uploaded',
      check: null,
      mapping: { Company: 'lead.name', Web: 'lead.url', Extra: 'new_custom_field' },
      duplicate_rule: { match: 'url', action: 'update' },
    })
    const badRule = await call(ctx.app, rep(), 'PUT', `/import/${made.id}/`, {
      body: { duplicate_rule: { match: 'fax', action: 'skip' } },
    })
    expect(badRule.statusCode).toBe(400)
  })

  it('deletes an import with its file', async () => {
    const made = await uploaded(Buffer.from(TEXT))
    const res = await call(ctx.app, rep(), 'DELETE', `/import/${made.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/import/${made.id}/`)).statusCode).toBe(404)
    const chunks = await ctx.database.db
      .selectFrom('data_import_chunk')
      .select('seq')
      .where('import_id', '=', made.id)
      .execute()
    expect(chunks).toEqual([])
  })
})
