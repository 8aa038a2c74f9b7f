import type { SseMessage } from '@leadline/shared/sse'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApiProcess, stopApiProcesses, type ApiProcess } from '../../tooling/test-support/api-process.js'
import { listenLocally } from '../../tooling/test-support/raw-http.js'
import { openSse, type SseClient } from '@leadline/shared/sse-client'
import {
  basicAuth,
  createTestContext,
  TEST_STREAM_SECRET,
  type TestContext,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { recordEvents } from './event-repo.js'
import { outboxSink } from '../outbox/outbox-writer.js'

// What only Postgres can do to the stream: commit a lower `seq` after a higher one, and serve it from several
// api processes at once.

let ctx: TestContext
let base = ''
const opened: SseClient[] = []
const processes: ApiProcess[] = []

beforeAll(async () => {
  ctx = await createTestContext()
  base = `http://127.0.0.1:${String(await listenLocally(ctx.app))}/api/v1`
})

afterAll(async () => {
  for (const client of opened) client.close()
  await stopApiProcesses(processes)
  await ctx.close()
}, 30_000)

async function stream(at: string, org: TestOrg, headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await openSse(`${at}/event/stream/`, {
    authorization: basicAuth(org.member.key),
    'x-leadline-stream-secret': TEST_STREAM_SECRET,
    ...headers,
  })
  opened.push(client)
  expect(client.status).toBe(200)
  return client
}

async function post(at: string, key: string, path: string, body: unknown): Promise<{ id: string }> {
  const response = await fetch(`${at}${path}`, {
    method: 'POST',
    headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(200)
  return (await response.json()) as { id: string }
}

/** The task events among the messages (the leads the tasks go on have their events too). */
function taskMessages(client: SseClient): SseMessage[] {
  return client.messages.filter((m) => (JSON.parse(m.data) as { object_type: string }).object_type === 'task.lead')
}

function objectIds(messages: SseMessage[]): string[] {
  return messages.map((m) => (JSON.parse(m.data) as { object_id: string }).object_id)
}

/** The object ids of the task events, once there are `count`. */
async function untilTasks(client: SseClient, count: number): Promise<string[]> {
  await expect.poll(() => taskMessages(client).length, { timeout: 5000 }).toBeGreaterThanOrEqual(count)
  return objectIds(taskMessages(client))
}

describe('a transaction that commits after a later one', () => {
  it('has its event sent all the same, also to a stream resumed from the later one', async () => {
    const org = await ctx.createOrg('Late Co')
    const client = await stream(base, org)
    await client.waitForId()
    const lead = await post(base, org.member.key, '/lead/', { name: 'Late Lead' })

    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let inserted: () => void = () => undefined
    const written = new Promise<void>((resolve) => {
      inserted = resolve
    })
    // Takes its `seq` now, commits only when released.
    const late = ctx.database.db.transaction().execute(async (tx) => {
      const now = formatTimestamp(ctx.clock.now())
      await recordEvents(
        tx,
        {
          organizationId: org.id,
          userId: org.member.id,
          requestId: null,
          apiKeyId: null,
          now,
          sink: outboxSink(null),
        },
        [
          {
            objectType: 'task.lead',
            objectId: 'task_late',
            action: 'created',
            leadId: lead.id,
            data: { id: 'task_late' },
          },
        ],
      )
      inserted()
      await held
    })
    await written
    const early = await post(base, org.member.key, '/task/', { lead_id: lead.id, text: 'Committed first' })
    expect(await untilTasks(client, 1)).toEqual([early.id])
    const [first] = taskMessages(client)

    release()
    await late
    expect(await untilTasks(client, 2)).toEqual([early.id, 'task_late'])
    // It did take the lower seq: the log lists it as the older one.
    const log = await fetch(`${base}/event/?object_type=task.lead`, {
      headers: { authorization: basicAuth(org.admin.key) },
    })
    const listed = ((await log.json()) as { data: { object_id: string }[] }).data.map((e) => e.object_id)
    expect(listed).toEqual([early.id, 'task_late'])

    // A client that left right after the later event, before the late one came, gets it when it resumes.
    const resumed = await stream(base, org, { 'last-event-id': first?.lastEventId ?? '' })
    await expect.poll(() => objectIds(resumed.messages), { timeout: 5000 }).toContain('task_late')
  })
})

describe('several api processes on one database', () => {
  it('stream what any of them writes, and end their streams cleanly when stopped', async () => {
    const [a, b] = await Promise.all([startApiProcess(ctx.database.url), startApiProcess(ctx.database.url)])
    processes.push(a, b)
    const org = await ctx.createOrg('Two Processes Co')
    const onA = await stream(`${a.url}/api/v1`, org)
    const onB = await stream(`${b.url}/api/v1`, org)
    await Promise.all([onA.waitForId(), onB.waitForId()])

    const lead = await post(`${b.url}/api/v1`, org.member.key, '/lead/', { name: 'Split Lead' })
    const tasks: string[] = []
    for (let i = 0; i < 4; i++) {
      const via = i % 2 === 0 ? b.url : a.url
      tasks.push(
        (await post(`${via}/api/v1`, org.member.key, '/task/', { lead_id: lead.id, text: `T${String(i)}` })).id,
      )
    }
    expect(await untilTasks(onA, 4)).toEqual(tasks)
    expect(await untilTasks(onB, 4)).toEqual(tasks)

    const exited = new Promise<number | null>((resolve) => a.child.once('exit', resolve))
    a.child.kill('SIGTERM')
    expect(await onA.ended).toBe('end')
    expect(await exited).toBe(0)
    // The other process goes on.
    const after = await post(`${b.url}/api/v1`, org.member.key, '/task/', { lead_id: lead.id, text: 'After' })
    expect((await untilTasks(onB, 5)).at(-1)).toBe(after.id)
  }, 60_000)
})
