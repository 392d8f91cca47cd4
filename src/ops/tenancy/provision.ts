import { Type } from '@sinclair/typebox'
import type { KeyEnvironment } from '../../db/applications.ts'
import { createApplication, createKey, createTenant } from '../../domain/tenancy.ts'
import { failpoint } from '../../failpoints.ts'
import { newId } from '../../ids.ts'
import { insertOwnerMember } from '../../db/members.ts'
import { defineOp } from '../registry.ts'
import { Email, EnvironmentSchema, Input, Name, Out } from '../schemas.ts'
import { publishValid, TAG } from './shared.ts'

export const provisionOp = defineOp({
  id: 'tenants.provision',
  method: 'POST',
  path: '/tenants:provision',
  summary: 'Provision a workspace in one call',
  description:
    'Atomically creates the tenant, its first owner member (when `owner_email` is given), a default application and ' +
    'an owner-role default API key. Either everything is created or nothing is. `api_key` and `client_secret` are shown once.',
  tag: TAG,
  auth: ['PROV'],
  body: Input({
    tenant_name: Name('Workspace name'),
    app_name: Type.Optional(Name('Name of the default application (default: "Default")')),
    owner_email: Type.Optional(Email),
    environment: Type.Optional(EnvironmentSchema),
  }),
  response: Out({ tenant_id: Type.String(), application_id: Type.String(), api_key: Type.String(), client_secret: Type.String(), member_id: Type.Optional(Type.String()) }),
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'service_unavailable'],
  kind: 'write',
  internal: true,
  async handler(ctx, input) {
    const now = ctx.clock.now()
    const env: KeyEnvironment = input.environment ?? 'live'
    const tenant = await createTenant(ctx.sql, input.tenant_name, now)
    failpoint('provision.after_tenant')
    let memberId: string | undefined
    if (input.owner_email) {
      memberId = newId('mem', now.getTime())
      await insertOwnerMember(ctx.sql, memberId, tenant, { owner_email: input.owner_email }, now)
    }
    failpoint('provision.after_member')
    const { app, clientSecret } = await createApplication(ctx.sql, tenant.id, input.app_name ?? 'Default', env, now)
    await publishValid(ctx, clientSecret)
    failpoint('provision.after_application')
    const created = await createKey(ctx.sql, { tenantId: tenant.id, applicationId: app.id, environment: env, role: 'owner', name: 'Default key', isDefault: true, createdBy: memberId ?? null, now })
    if (!created) throw new Error('a new tenant already had a default key')
    failpoint('provision.after_key')
    await publishValid(ctx, created.key)
    ctx.audit.tenantId = tenant.id
    ctx.audit.targetId = tenant.id
    return { tenant_id: tenant.id, application_id: app.id, api_key: created.key, client_secret: clientSecret, ...(memberId ? { member_id: memberId } : {}) }
  },
})
