import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { namesOf } from './owner-names.js'

// The names a list shows of the leads and contacts its rows refer to: read by id, and only the organization's.
let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

describe('names of related leads and contacts', () => {
  it("gives the organization's own, and never another organization's, whatever ids are asked for", async () => {
    const mine = await ctx.createOrg('Names Co')
    const theirs = await ctx.createOrg('Other Names Co')
    const lead = async (key: string, name: string) => {
      const res = await call(ctx.app, key, 'POST', '/lead/', {
        body: { name, contacts: [{ name: `${name} contact` }] },
      })
      expect(res.statusCode, res.body).toBe(200)
      return res.json<{ id: string; contacts: { id: string }[] }>()
    }
    const a = await lead(mine.admin.key, 'Acme')
    const b = await lead(theirs.admin.key, 'Globex')
    const db = ctx.database.db
    expect(await namesOf(db, 'lead', mine.id, [a.id, b.id, 'lead_nothing'])).toEqual([{ id: a.id, name: 'Acme' }])
    expect(await namesOf(db, 'lead', theirs.id, [a.id, b.id])).toEqual([{ id: b.id, name: 'Globex' }])
    const contacts = [a.contacts[0]?.id ?? '', b.contacts[0]?.id ?? '']
    expect(await namesOf(db, 'contact', mine.id, contacts)).toEqual([{ id: contacts[0], name: 'Acme contact' }])
    expect(await namesOf(db, 'contact', mine.id, [])).toEqual([])
  })
})
