import { Type } from '@sinclair/typebox'
import { applicationsOfTenant } from '../../db/applications.ts'
import { applicationOut } from '../../domain/tenancy.ts'
import { defineOp } from '../registry.ts'
import { Application, Input, Out } from '../schemas.ts'
import { TAG, tenantFor } from './shared.ts'

export const listApplicationsOp = defineOp({
  id: 'applications.list',
  method: 'GET',
  path: '/applications',
  summary: 'List applications',
  tag: TAG,
  auth: ['KEY', 'MGMT', 'AGENT'],
  permission: 'app:read',
  scope: 'domains:read',
  query: Input({ tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Needed only with the management key' })) }),
  response: Out({ applications: Type.Array(Application), count: Type.Integer() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  zone: 'none',
  agent: {
    description: 'Lists the workspace\'s applications (the products domains get attached to). Start here: other tools need an application id. Returns id, name and environment of each.',
    toolset: 'read',
    inputs: [],
    output: ['applications', 'count'],
  },
  async handler(ctx, input) {
    const tenantId = tenantFor(ctx, input.tenant_id)
    const rows = await applicationsOfTenant(ctx.sql, tenantId)
    return { applications: rows.map(applicationOut), count: rows.length }
  },
})
