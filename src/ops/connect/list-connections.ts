import { Type } from '@sinclair/typebox'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { parseDomain } from '../../domain/hostnames.ts'
import { connectionsPage } from '../../domain/connection-views.ts'
import { defineOp } from '../registry.ts'
import { Id, Input, Out } from '../schemas.ts'
import { cursorOf, idFromCursor } from '../cursors.ts'
import { ConnectionSchema, StatusSchema, TAG } from './shared.ts'

export const listConnectionsOp = defineOp({
  id: 'connections.list',
  method: 'GET',
  path: '/connections',
  summary: 'List connections',
  description:
    'Tenant-scoped, oldest first. Filters `app_id`, `status`, `domain` (the connected hostname, exactly; case and a trailing dot ' +
    'are ignored) and `end_user_ref` (your reference for the end user): a customer\'s connections are found without an id mapping ' +
    'of your own. Pages of `limit` (1 to 200, default 50) with the opaque `next_cursor`, absent on the last page.',
  tag: TAG,
  auth: ['KEY', 'AGENT'],
  permission: 'connections:read',
  scope: 'domains:read',
  query: Input({
    app_id: Type.Optional(Id('app')),
    status: Type.Optional(StatusSchema),
    domain: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'Only the connection of this hostname' })),
    end_user_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only connections made for this end user' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  response: Out({ connections: Type.Array(ConnectionSchema), count: Type.Integer(), next_cursor: Type.Optional(Type.String()) }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  zone: 'none',
  agent: {
    description: 'Lists the workspace\'s connected domains, oldest first. Filters: app_id (one application\'s, an id from applications_list) and status (pending, propagating, live or failed); limit (1 to 200, default 50). Pass next_cursor back as cursor for the next page.',
    describe: { app_id: 'Only this application\'s connections: an id from applications_list (`app_…`)', status: 'Only connections in this status', cursor: 'next_cursor from the previous page' },
    toolset: 'read',
    output: ['connections', 'next_cursor'],
  },
  async handler(ctx, input) {
    const p = ctx.principal
    // A foreign app_id filter is 404, as a foreign id is everywhere (not an empty page).
    if (input.app_id) await getApplicationInTenant(ctx.sql, p.tenantId, input.app_id)
    const limit = input.limit ?? 50
    const after = input.cursor ? idFromCursor(input.cursor, 'con') : ''
    const domain = input.domain === undefined ? undefined : (parseDomain(input.domain)?.domain ?? input.domain.toLowerCase())
    return connectionsPage(ctx.sql, ctx.services.connectionViews, p, { ...input, domain }, after, limit, cursorOf)
  },
})
