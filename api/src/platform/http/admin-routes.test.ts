import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// Every admin change to one object checks the caller's role before it takes the organization's lock: a member's
// attempt answers 403 at once, even while an admin's change holds the lock, and changes nothing.

let ctx: TestContext
const objects: Record<string, string> = {}

beforeAll(async () => {
  ctx = await createTestContext()
  const made = async (path: string, body: Record<string, unknown>) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', path, { body })
    expect(res.statusCode, res.body).toBeLessThan(300)
    return res.json<{ id: string }>().id
  }
  objects.pipeline = await made('/pipeline/', { name: 'Locked pipeline' })
  objects['status/lead'] = await made('/status/lead/', { label: 'Locked lead status' })
  objects['status/opportunity'] = await made('/status/opportunity/', {
    label: 'Locked opportunity status',
    pipeline_id: objects.pipeline,
  })
  objects['custom_field/lead'] = await made('/custom_field/lead/', { name: 'Locked field', type: 'text' })
  objects.outcome = await made('/outcome/', { name: 'Locked outcome' })
  objects.phone_number = await made('/phone_number/', { number: '+14155550177' })
})
afterAll(async () => {
  await ctx.close()
})

const bodies: Record<string, Record<string, unknown>> = {
  pipeline: { name: 'By a rep' },
  'status/lead': { label: 'By a rep' },
  'status/opportunity': { label: 'By a rep' },
  'custom_field/lead': { name: 'By a rep' },
  outcome: { name: 'By a rep' },
  phone_number: { label: 'By a rep' },
}

/** What an admin reads of every object. */
async function snapshot() {
  const read = async (base: string) =>
    (await call(ctx.app, ctx.org.admin.key, 'GET', `/${base}/${objects[base] ?? ''}/`)).json<unknown>()
  return Promise.all(Object.keys(bodies).map(read))
}

/**
 * Runs `request` while another transaction holds the organization's row, as an admin's status, pipeline or custom
 * field change does on Postgres (SQLite has one writer and no such lock: there it just runs). Answers `waited` when
 * the request has not answered within 5 s, far longer than a refusal takes.
 */
async function whileOrganizationLocked<T>(request: () => Promise<T>): Promise<T | 'waited'> {
  if (ctx.database.dialect !== 'postgres') return request()
  let release = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  let locked = () => {}
  const taken = new Promise<void>((resolve) => (locked = resolve))
  const holder = ctx.database.db.transaction().execute(async (tx) => {
    await tx.selectFrom('organization').select('id').where('id', '=', ctx.org.id).forUpdate().execute()
    locked()
    await released
  })
  await taken
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<'waited'>((resolve) => {
    timer = setTimeout(() => {
      resolve('waited')
    }, 5000)
  })
  const pending = request()
  try {
    return await Promise.race([pending, waited])
  } finally {
    clearTimeout(timer)
    release()
    await holder
    await pending
  }
}

describe('admin changes to one object', () => {
  it.each(['PUT', 'DELETE'] as const)(
    'refuse a member’s %s with 403 before taking the organization’s lock, and change nothing',
    async (method) => {
      const before = await snapshot()
      for (const [base, body] of Object.entries(bodies)) {
        const res = await whileOrganizationLocked(() =>
          call(ctx.app, ctx.org.member.key, method, `/${base}/${objects[base] ?? ''}/`, {
            ...(method === 'PUT' ? { body } : {}),
          }),
        )
        expect(res, `${method} ${base}`).not.toBe('waited')
        if (res === 'waited') continue
        expect(res.statusCode, `${method} ${base}: ${res.body}`).toBe(403)
        expect(res.json()).toEqual({ error: expect.any(String) })
      }
      expect(await snapshot()).toEqual(before)
    },
  )

  it.each(['PUT', 'DELETE'] as const)('answer a member’s %s of an unknown id with 404, as before', async (method) => {
    for (const [base, body] of Object.entries(bodies)) {
      const res = await call(ctx.app, ctx.org.member.key, method, `/${base}/nope_doesnotexist/`, {
        ...(method === 'PUT' ? { body } : {}),
      })
      expect(res.statusCode, `${method} ${base}`).toBe(404)
    }
  })
})
