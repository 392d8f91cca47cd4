import { Type } from '@sinclair/typebox'
import { defineOp } from '../registry.ts'
import { Out } from '../schemas.ts'
import { TAG } from './shared.ts'

export const configOp = defineOp({
  id: 'config.get',
  method: 'GET',
  path: '/config',
  summary: 'Service discovery',
  description: '`version` is the running build string; `products` lists the engines wired on this deployment among connect, secure, sell, power, monitor, mcp.',
  tag: TAG,
  auth: ['NONE'],
  response: Out({ service: Type.String(), env: Type.String(), version: Type.String(), api_version: Type.String(), products: Type.Array(Type.String()) }),
  errors: [],
  kind: 'read',
  internal: true,
  handler: async (ctx) => ({ service: 'portico', env: ctx.config.appEnv, version: ctx.config.version, api_version: 'v1', products: ctx.services.products }),
})
