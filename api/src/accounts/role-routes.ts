import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../crm/deps.js'
import { crudSchemas } from '../platform/http/crud-routes.js'
import { NotFoundError } from '../platform/http/errors.js'
import { caller } from '../platform/http/request-context.js'

// Close's roles, as far as Leadline has them: the two a membership's `role_id` names, fixed (not editable), each with
// the Close permissions it grants. Custom roles and lead visibility rules are not implemented (README).

const roleSchema = Type.Object({
  id: Type.String({ description: 'What a membership’s `role_id` says: `admin` or `user`.' }),
  name: Type.String(),
  editable: Type.Boolean({ description: 'Always false: Leadline’s two roles are maintained by the system.' }),
  permissions: Type.Array(Type.String(), { description: 'What the role may do, in Close’s permission names.' }),
  visibility_user_lcf_behavior: Type.Null({ description: 'Every role sees every lead: no visibility rule applies.' }),
  visibility_user_lcf_ids: Type.Null(),
  organization_id: Type.String(),
})
type Role = Static<typeof roleSchema>

/** The roles, as facts about Leadline: an admin also manages the organization (settings, members, webhooks). */
const ROLES = [
  { id: 'admin', name: 'Admin', permissions: ['manage_organization', 'view_all_leads', 'export', 'import'] },
  { id: 'user', name: 'User', permissions: ['view_all_leads', 'export', 'import'] },
] as const

function roleView(role: (typeof ROLES)[number], organizationId: string): Role {
  return {
    id: role.id,
    name: role.name,
    editable: false,
    permissions: [...role.permissions],
    visibility_user_lcf_behavior: null,
    visibility_user_lcf_ids: null,
    organization_id: organizationId,
  }
}

export const roleRoutes: FastifyPluginAsyncTypebox<Deps> = async (app) => {
  const schemas = crudSchemas(['roles'], roleSchema)

  app.get('/role/', schemas.list('The roles of your organization: Admin and User'), async (request) => {
    const me = caller(request)
    const all = ROLES.map((role) => roleView(role, me.organizationId))
    const skip = request.query._skip ?? 0
    const limit = request.query._limit ?? all.length
    return { has_more: skip + limit < all.length, data: all.slice(skip, skip + limit) }
  })

  app.get('/role/:id/', schemas.get('One role'), async (request) => {
    const role = ROLES.find((known) => known.id === request.params.id)
    if (role === undefined) throw new NotFoundError('Role')
    return roleView(role, caller(request).organizationId)
  })
}
