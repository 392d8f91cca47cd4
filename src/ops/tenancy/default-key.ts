import { Type } from '@sinclair/typebox'
import { createKey, getTenant } from '../../domain/tenancy.ts'
import { activeDefaultKey } from '../../db/api-keys.ts'
import { firstApplication } from '../../db/applications.ts'
import { defineOp, reply } from '../registry.ts'
import { IdParam, Out } from '../schemas.ts'
import { publishValid, TAG } from './shared.ts'

export const defaultKeyOp = defineOp({
  id: 'tenants.default_key',
  method: 'POST',
  path: '/tenants/{id}/default-key',
  summary: 'Ensure the workspace default API key',
  description:
    'With no active default key, creates one (owner role) and answers 201 with the key shown once. When one exists, answers 200 ' +
    'with its id and prefix, `created: false`, and no secret. Two concurrent calls create at most one key.',
  tag: TAG,
  auth: ['PROV'],
  params: IdParam,
  bodyOptional: true,
  response: Out({ key_id: Type.String(), prefix: Type.String(), created: Type.Boolean(), api_key: Type.Optional(Type.String()) }),
  status: 201,
  altStatus: [{ status: 200, description: 'A default key already exists; no secret is returned' }],
  errors: ['unauthorized', 'not_found'],
  kind: 'write',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const tenant = await getTenant(ctx.sql, input.id)
    ctx.audit.tenantId = tenant.id
    const existing = () => activeDefaultKey(ctx.sql, tenant)
    const have = await existing()
    if (have) return reply(200, { key_id: have.id, prefix: have.prefix, created: false })
    const a = await firstApplication(ctx.sql, tenant)
    const created = await createKey(ctx.sql, {
      tenantId: tenant.id,
      applicationId: a?.id ?? null,
      environment: a?.environment ?? 'live',
      role: 'owner',
      name: 'Default key',
      isDefault: true,
      createdBy: null,
      now: ctx.clock.now(),
    })
    if (!created) {
      const raced = await existing()
      if (!raced) throw new Error('default key conflict without a default key')
      return reply(200, { key_id: raced.id, prefix: raced.prefix, created: false })
    }
    ctx.audit.targetId = created.row.id
    await publishValid(ctx, created.key)
    return { key_id: created.row.id, prefix: created.row.prefix, created: true, api_key: created.key }
  },
})
