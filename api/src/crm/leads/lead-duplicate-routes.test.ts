import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  NAME_SIMILARITY_THRESHOLD,
  type DuplicateCluster,
  type LeadDuplicate,
} from '@leadline/shared/lead-duplicate-schema'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { nameTrigrams, trigramSimilarity } from './name-trigrams.js'

let ctx: TestContext
let run = 0

beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

/** A word no other test's leads share, so that each test sees its own leads only. */
function unique(): string {
  run++
  return `${['quill', 'zephyr', 'marlin', 'tundra', 'orchid', 'basalt', 'juniper', 'nimbus'][run % 8] ?? ''}${String(run)}x${String(Date.now() % 100000)}`
}

async function createLead(body: Record<string, unknown>, key = ctx.org.member.key): Promise<string> {
  const res = await call(ctx.app, key, 'POST', '/lead/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string }>().id
}

async function duplicatesOf(id: string, key = ctx.org.member.key): Promise<LeadDuplicate[]> {
  const res = await call(ctx.app, key, 'GET', `/lead/${id}/duplicates/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: LeadDuplicate[] }>().data
}

function reasonsById(list: LeadDuplicate[]): Record<string, string[]> {
  return Object.fromEntries(list.map((d) => [d.lead.id, d.reasons]))
}

describe('GET /lead/{id}/duplicates/', () => {
  it('names a lead with a contact email in common, whatever its case', async () => {
    const word = unique()
    const first = await createLead({
      name: `${word} Alpha`,
      contacts: [{ emails: [{ email: `Pat@${word}.example` }] }],
    })
    const second = await createLead({ name: 'Unrelated', contacts: [{ emails: [{ email: `pat@${word}.EXAMPLE` }] }] })
    const other = await createLead({ name: 'Other', contacts: [{ emails: [{ email: `sam@${word}.example` }] }] })
    const found = await duplicatesOf(second)
    expect(reasonsById(found)).toEqual({ [first]: ['email'] })
    expect(found[0]?.lead).toMatchObject({ id: first, display_name: `${word} Alpha`, status_label: 'Potential' })
    expect(reasonsById(await duplicatesOf(other))).toEqual({})
  })

  it('names a lead with a contact phone in common', async () => {
    const digits = String(1000 + (run++ % 9000))
    const first = await createLead({ name: unique(), contacts: [{ phones: [{ phone: `+1415555${digits}` }] }] })
    const second = await createLead({ name: unique(), contacts: [{ phones: [{ phone: `(415) 555-${digits}` }] }] })
    expect(reasonsById(await duplicatesOf(second))).toMatchObject({ [first]: ['phone'] })
  })

  it('names a lead of the same web domain: without scheme, www., port or path, and no other domain', async () => {
    const word = unique()
    const first = await createLead({ name: unique(), url: `https://www.${word}.example/about?x=1` })
    const same = await createLead({ name: unique(), url: `http://${word}.example:8080/contact` })
    await createLead({ name: unique(), url: `https://not${word}.example/` })
    await createLead({ name: unique(), url: `https://${word}.example.org/` })
    const sub = await createLead({ name: unique(), url: `http://shop.${word}.example` })
    expect(reasonsById(await duplicatesOf(same))).toEqual({ [first]: ['url'] })
    expect(reasonsById(await duplicatesOf(sub))).toEqual({})
  })

  it(`names a lead whose name has a trigram similarity of ${String(NAME_SIMILARITY_THRESHOLD)} or more`, async () => {
    const word = unique()
    const near = `${word} Widgets Ltd`
    const close = `${word.toUpperCase()} Widget, Ltd.`
    const far = `${word} Plumbing and Heating Services`
    const similarity = (a: string, b: string) => trigramSimilarity(nameTrigrams(a), nameTrigrams(b))
    // The cases straddle the threshold.
    expect(similarity(near, close)).toBeGreaterThanOrEqual(NAME_SIMILARITY_THRESHOLD)
    expect(similarity(near, far)).toBeLessThan(NAME_SIMILARITY_THRESHOLD)
    expect(similarity(near, far)).toBeGreaterThan(0.2)
    const first = await createLead({ name: near })
    const farLead = await createLead({ name: far })
    const second = await createLead({ name: close })
    const found = await duplicatesOf(second)
    expect(reasonsById(found)).toEqual({ [first]: ['name'] })
    expect(found[0]?.similarity).toBeCloseTo(similarity(close.toLowerCase(), near.toLowerCase()), 3)
    expect(found.map((d) => d.lead.id)).not.toContain(farLead)
  })

  it('puts the leads with the most reasons first, never the lead itself, at most ten', async () => {
    const word = unique()
    const url = `https://${word}.example`
    const both = await createLead({
      name: `${word} Holdings`,
      url,
      contacts: [{ emails: [{ email: `a@${word}.example` }] }],
    })
    for (let i = 0; i < 11; i++) await createLead({ name: unique(), url: `${url}/${String(i)}` })
    const mine = await createLead({
      name: `${word} Holding`,
      url,
      contacts: [{ emails: [{ email: `a@${word}.example` }] }],
    })
    const found = await duplicatesOf(mine)
    expect(found).toHaveLength(10)
    expect(found[0]).toMatchObject({ lead: { id: both }, reasons: ['email', 'url', 'name'] })
    expect(found.map((d) => d.lead.id)).not.toContain(mine)
  })

  it('never names a lead once it is merged', async () => {
    const word = unique()
    const email = `x@${word}.example`
    const keep = await createLead({ name: unique(), contacts: [{ emails: [{ email }] }] })
    const twin = await createLead({ name: unique(), contacts: [{ emails: [{ email }] }] })
    const third = await createLead({ name: unique(), contacts: [{ emails: [{ email }] }] })
    expect(Object.keys(reasonsById(await duplicatesOf(third))).sort()).toEqual([keep, twin].sort())
    const merged = await call(ctx.app, ctx.org.member.key, 'POST', '/lead/merge/', {
      body: { source: twin, destination: keep },
    })
    expect(merged.statusCode, merged.body).toBe(200)
    expect(Object.keys(reasonsById(await duplicatesOf(third)))).toEqual([keep])
  })

  it('never names another organization’s leads, and another organization’s lead is a 404', async () => {
    const word = unique()
    const body = {
      name: `${word} Shared`,
      url: `https://${word}.example`,
      contacts: [{ emails: [{ email: `a@${word}.example` }] }],
    }
    const theirs = await createLead(body, ctx.other.member.key)
    const mine = await createLead(body)
    expect(await duplicatesOf(mine)).toEqual([])
    const res = await call(ctx.app, ctx.org.member.key, 'GET', `/lead/${theirs}/duplicates/`)
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: 'Lead not found.' })
  })

  it('shows a colleague’s leads to every member, as the lead routes do', async () => {
    const word = unique()
    const email = `c@${word}.example`
    const admins = await createLead({ name: unique(), contacts: [{ emails: [{ email }] }] }, ctx.org.admin.key)
    const members = await createLead({ name: unique(), contacts: [{ emails: [{ email }] }] })
    expect(reasonsById(await duplicatesOf(members, ctx.org.member.key))).toEqual({ [admins]: ['email'] })
    expect(reasonsById(await duplicatesOf(admins, ctx.org.member.key))).toEqual({ [members]: ['email'] })
    expect(reasonsById(await duplicatesOf(members, ctx.org.admin.key))).toEqual({ [admins]: ['email'] })
  })

  it.each(['lead_doesNotExist', 'not an id', 'x'.repeat(90)])('answers 404 for %s', async (id) => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', `/lead/${encodeURIComponent(id)}/duplicates/`)
    expect(res.statusCode, res.body).toBe(404)
  })

  it('asks for an API key', async () => {
    const res = await call(ctx.app, undefined, 'GET', '/lead/duplicates/')
    expect(res.statusCode).toBe(401)
  })
})

describe('GET /lead/duplicates/', () => {
  let org: TestOrg
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    org = await ctx.createOrg('Clusters Inc')
    const make = async (label: string, body: Record<string, unknown>) => {
      ids[label] = await createLead(body, org.member.key)
    }
    await make('a', {
      name: 'Acme Rockets',
      url: 'https://www.acme.example',
      contacts: [{ emails: [{ email: 'wile@acme.example' }] }],
    })
    await make('b', {
      name: 'Acme Rocket',
      url: 'acme.example/shop',
      contacts: [{ emails: [{ email: 'WILE@acme.example' }] }],
    })
    await make('c', {
      name: 'Beep Beep',
      contacts: [{ emails: [{ email: 'wile@acme.example' }], phones: [{ phone: '+14155550199' }] }],
    })
    await make('d', { name: 'beep beep', contacts: [{ phones: [{ phone: '+14155550199' }] }] })
    await make('e', { name: 'Lonely', url: 'https://lonely.example' })
    // Another organization's leads that share everything: never counted here.
    await createLead(
      { name: 'Acme Rockets', url: 'https://acme.example', contacts: [{ emails: [{ email: 'wile@acme.example' }] }] },
      ctx.other.member.key,
    )
  })

  async function clusters(query: Record<string, string> = {}, key = org.member.key) {
    const res = await call(ctx.app, key, 'GET', '/lead/duplicates/', { query })
    expect(res.statusCode, res.body).toBe(200)
    return res.json<{ has_more: boolean; data: DuplicateCluster[] }>()
  }

  it('lists each shared email, phone, domain and name by reason, its leads oldest first', async () => {
    const page = await clusters()
    expect(page.has_more).toBe(false)
    expect(page.data.map((c) => [c.reason, c.value, c.lead_count, c.leads.map((l) => l.id)])).toEqual([
      ['email', 'wile@acme.example', 3, [ids.a, ids.b, ids.c]],
      ['phone', '+14155550199', 2, [ids.c, ids.d]],
      ['url', 'acme.example', 2, [ids.a, ids.b]],
      ['name', 'beep beep', 2, [ids.c, ids.d]],
    ])
    expect(page.data[0]?.leads[0]).toMatchObject({ display_name: 'Acme Rockets', url: 'https://www.acme.example' })
  })

  it('pages with _skip and _limit', async () => {
    const first = await clusters({ _limit: '3' })
    expect(first.has_more).toBe(true)
    expect(first.data.map((c) => c.reason)).toEqual(['email', 'phone', 'url'])
    const rest = await clusters({ _skip: '3', _limit: '3' })
    expect(rest).toMatchObject({ has_more: false, data: [{ reason: 'name' }] })
    expect((await clusters({ _skip: '10' })).data).toEqual([])
    const tooMany = await call(ctx.app, org.member.key, 'GET', '/lead/duplicates/', { query: { _limit: '101' } })
    expect(tooMany.statusCode).toBe(400)
  })

  it('is the same for an admin, and another organization sees none of these', async () => {
    expect(await clusters({}, org.admin.key)).toEqual(await clusters())
    const theirs = await clusters({}, ctx.other.member.key)
    for (const cluster of theirs.data) {
      for (const lead of cluster.leads) expect(Object.values(ids)).not.toContain(lead.id)
    }
  })

  it('drops a cluster once its leads are merged', async () => {
    const merged = await call(ctx.app, org.member.key, 'POST', '/lead/merge/', {
      body: { source: ids.d, destination: ids.c },
    })
    expect(merged.statusCode, merged.body).toBe(200)
    const page = await clusters()
    expect(page.data.map((c) => c.reason)).toEqual(['email', 'url'])
  })
})
