import { Type } from '@sinclair/typebox'
import { getApplicationInTenant, keyOut } from '../../domain/tenancy.ts'
import { keysOfApplication } from '../../db/api-keys.ts'
import { defineOp } from '../registry.ts'
import { ApiKeyMeta, IdParam, Out } from '../schemas.ts'
import { TAG } from './shared.ts'

export const listKeysOp = defineOp({
  id: 'keys.list',
  method: 'GET',
  path: '/applications/{id}/keys',
  summary: 'List API keys (metadata only)',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:read',
  params: IdParam,
  response: Out({ keys: Type.Array(ApiKeyMeta), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const p = ctx.principal
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const rows = await keysOfApplication(ctx.sql, p, input)
    return { keys: rows.map(keyOut), count: rows.length }
  },
})
