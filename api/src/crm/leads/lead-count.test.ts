import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// The unfiltered list's total_results comes from a count the database keeps (migration 0007); it must agree with
// the leads there are after every kind of change, and stay apart between organizations.
let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

async function listed(key: string) {
  const body = (await call(ctx.app, key, 'GET', '/lead/?_limit=200')).json()
  return { total: body.total_results, ids: body.data.map((lead: { id: string }) => lead.id) }
}

async function create(key: string, name: string): Promise<string> {
  const res = await call(ctx.app, key, 'POST', '/lead/', { body: { name } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().id
}

describe('total_results of the unfiltered lead list', () => {
  it('follows creates, refused creates, deletes and merges, per organization', async () => {
    const org = await ctx.createOrg('Counting Co')
    const other = await ctx.createOrg('Elsewhere Co')
    const key = org.member.key
    expect(await listed(key)).toEqual({ total: 0, ids: [] })
    const [a, b, c] = [await create(key, 'A'), await create(key, 'B'), await create(key, 'C')]
    await create(other.member.key, 'Theirs')
    expect((await listed(key)).total).toBe(3)

    const refused = await call(ctx.app, key, 'POST', '/lead/', { body: { name: 'X', status_id: 'stat_nope' } })
    expect(refused.statusCode).toBe(400)
    expect((await listed(key)).total).toBe(3)

    expect((await call(ctx.app, key, 'DELETE', `/lead/${a}/`)).statusCode).toBe(200)
    const merged = await call(ctx.app, key, 'POST', '/lead/merge/', { body: { source: b, destination: c } })
    expect(merged.statusCode, merged.body).toBe(200)
    expect(await listed(key)).toEqual({ total: 1, ids: [c] })
    expect(await listed(other.member.key)).toMatchObject({ total: 1 })
  })
})
