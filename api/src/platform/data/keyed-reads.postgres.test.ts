import { expect, test, vi } from 'vitest'
import { LEAD_VERSIONS } from '../../crm/leads/lead-routes.js'
import { META_VERSION } from '../../crm/organizations/organization-meta.js'
import { keyedReadsFixture } from '../../tooling/test-support/keyed-reads-fixture.js'

// What `HotReader.one` does only on Postgres: the reads of one kind asked for together go as one query
// (keyed-reads.test.ts checks on both databases that each still gets what a read of its own would).

const fixture = keyedReadsFixture()
const { leads } = fixture

test('on Postgres, the reads of one kind asked for together are one query', async () => {
  const { reader, pgPool } = fixture.ctx.database
  if (pgPool === undefined) throw new Error('no Postgres pool')
  const query = vi.spyOn(pgPool, 'query')
  try {
    await Promise.all([
      ...leads.map((id) => reader.one(LEAD_VERSIONS, [fixture.ctx.org.id, id])),
      reader.one(META_VERSION, [fixture.ctx.org.id]),
      reader.one(META_VERSION, [fixture.ctx.other.id]),
    ])
    expect(query).toHaveBeenCalledTimes(2)
    query.mockClear()
    await reader.one(LEAD_VERSIONS, [fixture.ctx.org.id, leads[0] ?? ''])
    expect(query).toHaveBeenCalledTimes(1)
  } finally {
    query.mockRestore()
  }
})
