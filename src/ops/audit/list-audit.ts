// The audit log read path. Every successful mutation writes its row in its own transaction
// (src/ops/run.ts): who (credential kind and id), what (operation id, target), when, from where.
// Owners and admins read their tenant's log; the management key reads across tenants.
import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { invalid } from '../../errors.ts'
import { auditPage } from '../../db/audit.ts'
import { Input, Nullable, Out, Timestamp } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { cursorOf, idFromCursor } from '../cursors.ts'

const Entry = named('AuditEntry', Out({
  id: Type.String(),
  tenant_id: Nullable(Type.String()),
  actor_kind: Type.String({ description: 'MGMT, PROV, KEY, WIDGET, AGENT, EDGE or NONE' }),
  actor_id: Nullable(Type.String({ description: 'API key id, widget application id or agent client id' })),
  action: Type.String({ description: 'The operation id, e.g. `keys.revoke`' }),
  target_id: Nullable(Type.String()),
  method: Type.String(),
  path: Type.String({ description: 'The route template' }),
  ip: Nullable(Type.String()),
  request_id: Nullable(Type.String()),
  details: Type.Object({}, { additionalProperties: true }),
  created_at: Timestamp(),
}))

export const listAuditOp = defineOp({
  id: 'audit.list',
  method: 'GET',
  path: '/audit-log',
  summary: 'Read the audit log',
  description:
    'Newest first. API keys of owners and admins read their own tenant; the management key reads every tenant (filter `tenant_id`). ' +
    'Filters `action` (operation id), `actor_id`, `since` (timestamp); pages of `limit` (1 to 500, default 100) with `next_cursor`.',
  tag: 'Audit',
  auth: ['KEY', 'MGMT'],
  permission: 'audit:read',
  query: Input({
    tenant_id: Type.Optional(Type.String({ maxLength: 100, description: 'Management key only' })),
    action: Type.Optional(Type.String({ maxLength: 100 })),
    actor_id: Type.Optional(Type.String({ maxLength: 100 })),
    since: Type.Optional(Type.String({ format: 'date-time' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  response: Out({ entries: Type.Array(Entry), count: Type.Integer(), next_cursor: Type.Optional(Type.String()) }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  internal: true,
  async handler(ctx, input) {
    const p = ctx.principal
    if (p.kind !== 'MGMT' && input.tenant_id !== undefined) throw invalid('tenant_id is for the management key only', [{ in: 'query', field: 'tenant_id', message: 'not allowed with an API key' }])
    const tenant = p.kind === 'MGMT' ? (input.tenant_id ?? null) : p.tenantId
    const limit = input.limit ?? 100
    const before = input.cursor ? idFromCursor(input.cursor, 'aud') : '~'
    const rows = await auditPage(ctx.sql, tenant, before, input, limit)
    const page = rows.slice(0, limit)
    return {
      entries: page,
      count: page.length,
      ...(rows.length > limit ? { next_cursor: cursorOf(String(page[page.length - 1]!.id)) } : {}),
    }
  },
})
