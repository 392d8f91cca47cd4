import { connectionFor } from '../../domain/connections.ts'
import { monitorHistory, monitorRowOf } from '../../db/monitor.ts'
import { defineOp } from '../registry.ts'
import { IdParam } from '../schemas.ts'
import { entryOut, EntrySchema, TAG } from './shared.ts'

const HISTORY_LIMIT = 50

export const connectionMonitorOp = defineOp({
  id: 'connections.monitor',
  method: 'GET',
  path: '/connections/{id}/monitor',
  summary: 'Monitor detail of one connection',
  description: 'The monitor entry of the connection with its history of drift, restorations and repairs (newest first, up to 50).',
  tag: TAG,
  auth: ['KEY', 'AGENT'],
  permission: 'connections:read',
  scope: 'domains:read',
  params: IdParam,
  response: EntrySchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'none',
  agent: {
    description: 'The watch history of one connection: whether its records are still in place, what drifted and what was repaired, newest first.',
    toolset: 'read',
    output: ['domain', 'status', 'watched', 'drift', 'attention', 'history'],
  },
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const [row, history] = await Promise.all([monitorRowOf(ctx.sql, c), monitorHistory(ctx.sql, c, HISTORY_LIMIT)])
    return { ...entryOut(ctx, row), history }
  },
})
