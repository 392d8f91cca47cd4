import { applicationById, type ApplicationRow } from '../../db/applications.ts'
import { notFound } from '../../errors.ts'
import { applicationOut, getApplicationInTenant } from '../../domain/tenancy.ts'
import { type Ctx, defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { Application, IdParam } from '../schemas.ts'
import { TAG } from './shared.ts'

/** Reads one application the principal may see; a widget token sees only its own. */
export async function applicationFor(ctx: Ctx, id: string): Promise<ApplicationRow> {
  const p = ctx.principal
  if (p.kind === 'MGMT') {
    const a = await applicationById(ctx.sql, id)
    if (!a) throw notFound('Application not found')
    return a
  }
  if (!('tenantId' in p)) throw notFound('Application not found')
  if (p.kind === 'WIDGET' && p.applicationId !== id) throw notFound('Application not found')
  return getApplicationInTenant(ctx.sql, p.tenantId, id)
}

export const getApplicationOp = defineOp({
  id: 'applications.get',
  method: 'GET',
  path: '/applications/{id}',
  summary: 'Read an application',
  description: 'A widget token may read only its own application.',
  tag: TAG,
  auth: ['KEY', 'MGMT', 'WIDGET', 'AGENT'],
  widget: APP_ONLY,
  permission: 'app:read',
  scope: 'domains:read',
  params: IdParam,
  response: Application,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  zone: 'none',
  agent: {
    description: 'Reads one application by id: its name, environment and where connected domains point.',
    toolset: 'read',
    output: ['id', 'name', 'environment'],
  },
  handler: async (ctx, input) => applicationOut(await applicationFor(ctx, input.id)),
})
