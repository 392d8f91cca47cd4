import { connectionView } from '../../domain/connection-views.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { IdParam } from '../schemas.ts'
import { ConnectionSchema, LIFECYCLE_NOTE, TAG } from './shared.ts'

export const getConnectionOp = defineOp({
  id: 'connections.get',
  method: 'GET',
  path: '/connections/{id}',
  summary: 'Read a connection',
  description: LIFECYCLE_NOTE,
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  permission: 'connections:read',
  scope: 'domains:read',
  params: IdParam,
  response: ConnectionSchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'none',
  agent: {
    description:
      'Reads one connection: its status (pending → propagating → live, or failed with a reason), the records it needs and when it was last checked. Use it to follow a connection after creating it.',
    app: true,
    toolset: 'read',
    output: ['id', 'domain', 'status', 'rail', 'error_code', 'error_message', 'last_checked_at', 'live_at'],
  },
  handler: (ctx, input) => connectionView(ctx.sql, ctx.services.connectionViews, ctx.principal, input.id),
})
