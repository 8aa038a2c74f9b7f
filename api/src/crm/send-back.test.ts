import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEveryObject, type EveryObject } from '../tooling/test-support/every-object.js'
import { documentedOperations, type Operation } from '../tooling/test-support/openapi-walk.js'
import { withoutUpdate } from '../tooling/test-support/sent-back.js'
import { call, createTestContext, type TestContext } from '../tooling/test-support/test-app.js'

// Scripts written against Close read an object, change what they mean to and send the whole of it back. For every
// documented `PUT` of one object that has a `GET` beside it, generated from the OpenAPI document: the object as read,
// sent back unchanged, is taken, and reads back the same but for when and by whom it was last changed.

let ctx: TestContext
let objects: EveryObject
let operations: Operation[]

beforeAll(async () => {
  ctx = await createTestContext()
  objects = await createEveryObject(ctx.app, ctx.org, 1)
  operations = await documentedOperations(ctx.app)
}, 120_000)
afterAll(async () => {
  await ctx.close()
})

/** PUTs that are not a change of the object's fields, with why. */
const COMMANDS: Record<string, string> = {
  'PUT /bulk_action/edit/{id}/': 'pauses or resumes the job (`status`); a finished job has neither to take',
  'PUT /bulk_action/delete/{id}/': 'pauses or resumes the job (`status`); a finished job has neither to take',
}

describe('an object read and sent back as it was read', () => {
  it('is taken and unchanged, for every PUT of one object', async () => {
    const puts = operations.filter((op) => op.method === 'PUT' && op.path.endsWith('/{id}/'))
    const gets = new Set(operations.filter((op) => op.method === 'GET').map((op) => op.path))
    const checked: string[] = []
    const failures: string[] = []
    for (const op of puts) {
      if (!gets.has(op.path) || op.key in COMMANDS) continue
      const collection = op.path.slice(0, -'{id}/'.length)
      const id = objects.byCollection[collection]
      if (id === undefined) continue
      const path = `${collection}${id}/`
      // The admin's view of it, or its owner's where it is the member's alone (an unshared Smart View).
      let key = ctx.org.admin.key
      let read = await call(ctx.app, key, 'GET', path)
      if (read.statusCode === 404) {
        key = ctx.org.member.key
        read = await call(ctx.app, key, 'GET', path)
      }
      expect(read.statusCode, `GET ${path}: ${read.body}`).toBe(200)
      ctx.clock.advance(1000)
      const saved = await call(ctx.app, key, 'PUT', path, { body: read.json() })
      const again = await call(ctx.app, key, 'GET', path)
      checked.push(op.key)
      if (saved.statusCode !== 200) failures.push(`${op.key}: ${String(saved.statusCode)} ${saved.body}`)
      else if (JSON.stringify(withoutUpdate(again.json())) !== JSON.stringify(withoutUpdate(read.json())))
        failures.push(`${op.key}: was ${read.body}\n   now ${again.body}`)
    }
    expect(failures).toEqual([])
    // The walk reached the objects people edit most (and, with them, every other one EveryObject makes).
    expect(checked).toEqual(
      expect.arrayContaining(['PUT /lead/{id}/', 'PUT /contact/{id}/', 'PUT /opportunity/{id}/', 'PUT /task/{id}/']),
    )
    expect(checked.length).toBeGreaterThanOrEqual(20)
  })
})
