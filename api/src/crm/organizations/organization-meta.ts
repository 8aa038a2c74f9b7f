import { LRUCache } from 'lru-cache'
import type { Organization } from '@leadline/shared/organization-schema'
import type { OpportunityStatusType } from '@leadline/shared/status-schema'
import type { CustomObjectType, Db, HotReader, KeyedRead } from '../../platform/data/database.js'
import { listCustomFieldDefs, type CustomFieldDef } from '../custom-fields/custom-values.js'
import { organizationView } from './organization-view.js'
import { found } from '../../platform/data/find-or-404.js'

/** What describes an organization, as of `version` (organization.meta_version, kept by migration 0005's triggers). */
export interface OrganizationMeta {
  version: number
  organization: Organization
  leadStatusLabels: Map<string, string>
  customFields: Record<CustomObjectType, CustomFieldDef[]>
  /** Display names of the organization's members by user id. */
  memberNames: Map<string, string>
  /** The organization's opportunity statuses by id. */
  opportunityStatuses: Map<string, OpportunityStatusMeta>
  /** Pipeline names by id. */
  pipelineNames: Map<string, string>
}

export interface OpportunityStatusMeta {
  label: string
  type: OpportunityStatusType
  pipeline_id: string
}

export interface MetaCache {
  /** The organization's current meta version; undefined when it does not exist. */
  version(organizationId: string): Promise<number | undefined>
  /**
   * The organization's metadata, read again only when its version moved. Pass `version` when the caller has just
   * read it along with its own rows, to save the lookup.
   */
  get(organizationId: string, version?: number): Promise<OrganizationMeta | undefined>
  /** `get`, for a caller whose organization must exist: a 404 when it does not. */
  require(organizationId: string, version?: number): Promise<OrganizationMeta>
}

const MAX_ORGANIZATIONS = 1000
/** An organization's meta version; concurrent reads share a query on Postgres (`HotReader.one`). */
export const META_VERSION: KeyedRead = {
  one: 'SELECT meta_version FROM organization WHERE id = ?',
  many: `SELECT k.i::int AS i, organization.meta_version
  FROM unnest($1::text[]) WITH ORDINALITY AS k (id, i) JOIN organization ON organization.id = k.id`,
}

async function load(db: Db, organizationId: string, version: number): Promise<OrganizationMeta | undefined> {
  const [organization, lead, contact, opportunity, pipelines] = await Promise.all([
    organizationView(db, organizationId),
    listCustomFieldDefs(db, organizationId, 'lead'),
    listCustomFieldDefs(db, organizationId, 'contact'),
    listCustomFieldDefs(db, organizationId, 'opportunity'),
    db.selectFrom('pipeline').select(['id', 'name']).where('organization_id', '=', organizationId).execute(),
  ])
  if (organization === undefined) return undefined
  return {
    version,
    organization,
    leadStatusLabels: new Map(organization.lead_statuses.map((s) => [s.id, s.label])),
    customFields: { lead, contact, opportunity },
    memberNames: new Map(organization.memberships.map((m) => [m.user_id, m.user_full_name])),
    opportunityStatuses: new Map(
      organization.opportunity_statuses.map((s) => [
        s.id,
        { label: s.label, type: s.type, pipeline_id: s.pipeline_id },
      ]),
    ),
    pipelineNames: new Map(pipelines.map((p) => [p.id, p.name])),
  }
}

/**
 * The organization's metadata as a transaction sees it, uncached: for the events of a change to the metadata itself
 * (a status's new type shows in the views built after it).
 */
export async function organizationMetaIn(tx: Db, organizationId: string): Promise<OrganizationMeta | undefined> {
  const row = await tx
    .selectFrom('organization')
    .select('meta_version')
    .where('id', '=', organizationId)
    .executeTakeFirst()
  return row === undefined ? undefined : load(tx, organizationId, row.meta_version)
}

/**
 * Per-process cache of organization metadata. Every use reads the version first (one indexed point read) and the
 * data after it, so an entry is never newer-labelled than its contents: a change committed by any process, this one
 * or another on the same database, is seen by the next request.
 */
export function createMetaCache(db: Db, reader: HotReader): MetaCache {
  // Read with peek: the organization first cached is the first forgotten, however often it is read.
  const entries = new LRUCache<string, OrganizationMeta>({ max: MAX_ORGANIZATIONS })
  const loading = new Map<string, Promise<OrganizationMeta | undefined>>()

  async function version(organizationId: string): Promise<number | undefined> {
    const row = await reader.one<{ meta_version: number }>(META_VERSION, [organizationId])
    return row?.meta_version
  }

  async function get(organizationId: string, known?: number): Promise<OrganizationMeta | undefined> {
    const current = known ?? (await version(organizationId))
    if (current === undefined) return undefined
    const cached = entries.peek(organizationId)
    if (cached !== undefined && cached.version === current) return cached
    const key = `${organizationId}:${String(current)}`
    let pending = loading.get(key)
    if (pending === undefined) {
      pending = load(db, organizationId, current).finally(() => loading.delete(key))
      loading.set(key, pending)
    }
    const meta = await pending
    if (meta !== undefined && (entries.peek(organizationId)?.version ?? -1) < meta.version) {
      entries.set(organizationId, meta)
    }
    return meta
  }

  async function require(organizationId: string, known?: number): Promise<OrganizationMeta> {
    const meta = found(await get(organizationId, known), 'Organization')
    return meta
  }

  return { version, get, require }
}
