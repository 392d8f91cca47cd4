import { createTenant, tenantOut } from '../../domain/tenancy.ts'
import { defineOp } from '../registry.ts'
import { Input, Name, Tenant } from '../schemas.ts'
import { TAG } from './shared.ts'

export const createTenantOp = defineOp({
  id: 'tenants.create',
  method: 'POST',
  path: '/tenants',
  summary: 'Create a tenant',
  tag: TAG,
  auth: ['MGMT'],
  body: Input({ name: Name('Tenant name') }),
  response: Tenant,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'write',
  internal: true,
  async handler(ctx, input) {
    const t = await createTenant(ctx.sql, input.name, ctx.clock.now())
    ctx.audit.tenantId = t.id
    return tenantOut(t)
  },
})
