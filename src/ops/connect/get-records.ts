import { connectionFor } from '../../domain/connections.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { IdParam } from '../schemas.ts'
import { recordsOut, RecordsResponse, TAG } from './shared.ts'

export const getRecordsOp = defineOp({
  id: 'connections.records.get',
  method: 'GET',
  path: '/connections/{id}/records',
  summary: 'The desired records of a connection',
  description: 'The manual rail: the records to add, `host` relative to the zone apex (`@` is the apex), with provider-specific steps where the catalog has them.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  permission: 'connections:read',
  scope: 'domains:read',
  params: IdParam,
  response: RecordsResponse,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'none',
  agent: {
    description: 'The DNS records the person has to add at their DNS provider for a connection (host relative to the domain, "@" is the domain itself), with the provider\'s own steps when known. Show these when the person sets up DNS by hand.',
    app: true,
    toolset: 'read',
    output: ['domain', 'records', 'manual_steps', 'dashboard_url'],
  },
  handler: async (ctx, input) => recordsOut(await connectionFor(ctx.sql, ctx.principal, input.id)),
})
