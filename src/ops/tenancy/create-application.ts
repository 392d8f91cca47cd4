import { Type } from '@sinclair/typebox'
import { applicationOut, createApplication, getTenant } from '../../domain/tenancy.ts'
import { defineOp } from '../registry.ts'
import { ApplicationWithSecret, EnvironmentSchema, Input, Name } from '../schemas.ts'
import { publishValid, TAG, tenantFor } from './shared.ts'

export const createApplicationOp = defineOp({
  id: 'applications.create',
  method: 'POST',
  path: '/applications',
  summary: 'Create an application',
  description: 'With an API key the application is created in the key\'s own tenant and `tenant_id` is ignored; with the management key `tenant_id` is required. `client_secret` is returned once.',
  tag: TAG,
  auth: ['MGMT', 'KEY'],
  permission: 'app:write',
  body: Input({ tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), name: Name('Application name'), environment: Type.Optional(EnvironmentSchema) }),
  response: ApplicationWithSecret,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const tenantId = tenantFor(ctx, input.tenant_id)
    await getTenant(ctx.sql, tenantId)
    const { app, clientSecret } = await createApplication(ctx.sql, tenantId, input.name, input.environment ?? 'live', ctx.clock.now())
    await publishValid(ctx, clientSecret)
    ctx.audit.tenantId = tenantId
    return { ...applicationOut(app), client_secret: clientSecret }
  },
})
