import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../platform/deps.js'

export const phoneNumberRoutes: FastifyPluginAsyncTypebox<Deps> = async () => {}
