import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { IdParam } from '../schemas.ts'
import { applicationOf, targetOut, TargetResponse } from './shared.ts'

export const getConnectTargetOp = defineOp({
  id: 'applications.connect_target.get',
  method: 'GET',
  path: '/applications/{id}/connect-target',
  summary: 'Read an application\'s connect target',
  tag: 'Tenancy and keys',
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'app:read',
  params: IdParam,
  response: TargetResponse,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const app = await applicationOf(ctx, input.id)
    return targetOut(ctx, app)
  },
})
