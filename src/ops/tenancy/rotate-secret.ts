import { Type } from '@sinclair/typebox'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { newClientSecret } from '../../domain/secrets.ts'
import { rotateClientSecret } from '../../db/applications.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Input, Out, Timestamp } from '../schemas.ts'
import { publishValid, publishValidHash, TAG } from './shared.ts'

/** How long a rotated-out client secret keeps working unless the caller says otherwise. */
export const DEFAULT_SECRET_OVERLAP_S = 24 * 3600

export const rotateSecretOp = defineOp({
  id: 'applications.rotate_secret',
  method: 'POST',
  path: '/applications/{id}:rotate-secret',
  summary: 'Rotate an application\'s client_secret',
  description:
    'Answers a new `client_secret` (shown once). The previous secret keeps minting widget tokens at `POST /tokens` until `previous_valid_until`: ' +
    '`overlap_seconds` after now (default 86400, one day; at most 604800; 0 ends it at once), time to roll the new one out to every server. ' +
    'Rotating again ends the earlier secret at once: only the one just replaced overlaps. Admins and owners (`keys:manage`).',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:manage',
  params: IdParam,
  body: Input({ overlap_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, description: 'How long the previous secret stays valid (seconds; default 86400)' })) }),
  bodyOptional: true,
  response: Out({ application_id: Type.String(), client_secret: Type.String({ description: 'Shown once' }), previous_valid_until: Timestamp() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const p = ctx.principal
    const app = await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const now = ctx.clock.now()
    const until = new Date(now.getTime() + (input.overlap_seconds ?? DEFAULT_SECRET_OVERLAP_S) * 1000)
    const { secret, hash } = newClientSecret()
    const previous = await rotateClientSecret(ctx.sql, p.tenantId, app.id, hash, until, now)
    if (previous === null) throw notFound('Application not found')
    // The new secret, and the previous one for its overlap (a stale worker still holding it is who the overlap is for).
    await publishValid(ctx, secret)
    await publishValidHash(ctx, previous)
    ctx.audit.targetId = app.id
    ctx.audit.details = { previous_valid_until: until.toISOString() }
    return { application_id: app.id, client_secret: secret, previous_valid_until: until }
  },
})
