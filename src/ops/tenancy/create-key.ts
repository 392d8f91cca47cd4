import { Type } from '@sinclair/typebox'
import { ApiError } from '../../errors.ts'
import { createKey, getApplicationInTenant, keyOut } from '../../domain/tenancy.ts'
import { roleRank } from '../../domain/rbac.ts'
import { defineOp } from '../registry.ts'
import { ApiKeyMeta, IdParam, Input, Out, RoleSchema } from '../schemas.ts'
import { publishValid, TAG } from './shared.ts'

export const createKeyOp = defineOp({
  id: 'keys.create',
  method: 'POST',
  path: '/applications/{id}/keys',
  summary: 'Create an API key',
  description:
    'Admins and owners only. The key is tenant-wide, carries `role` (default: the role of the calling key, never above it) and ' +
    'its prefix follows the application environment (`ptc_live_` / `ptc_test_`). The full key is returned once.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:manage',
  params: IdParam,
  body: Input({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), role: Type.Optional(RoleSchema) }),
  bodyOptional: true,
  response: Type.Composite([ApiKeyMeta, Out({ key: Type.String({ description: 'Shown once' }) })]),
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const p = ctx.principal
    if (p.kind !== 'KEY') throw new ApiError('forbidden', 'Only API keys can mint API keys')
    const app = await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const role = input.role ?? p.role
    if (roleRank(role) > roleRank(p.role)) throw new ApiError('forbidden', `A ${p.role} key cannot mint a ${role} key`)
    const created = await createKey(ctx.sql, { tenantId: p.tenantId, applicationId: app.id, environment: app.environment, role, name: input.name ?? null, isDefault: false, createdBy: p.keyId, now: ctx.clock.now() })
    if (!created) throw new Error('non-default key insert reported a conflict')
    await publishValid(ctx, created.key)
    return { ...keyOut(created.row), key: created.key }
  },
})
