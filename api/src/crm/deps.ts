import type { PlatformDeps } from '../platform/deps.js'
import type { MetaCache } from './organizations/organization-meta.js'

/** What every route plugin above the platform receives: the platform's pieces and the organizations' metadata. */
export interface Deps extends PlatformDeps {
  meta: MetaCache
}
