import { Type } from '@sinclair/typebox'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { keyRoleInApplication, notifyKeyRevoked, revokeKey } from '../../db/api-keys.ts'
import { roleRank } from '../../domain/rbac.ts'
import { ApiError, notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { Input, Out, Timestamp } from '../schemas.ts'
import { TAG } from './shared.ts'

export const revokeKeyOp = defineOp({
  id: 'keys.revoke',
  method: 'DELETE',
  path: '/applications/{id}/keys/{keyId}',
  summary: 'Revoke an API key',
  description: 'The key stops authenticating on its next request. Revoking a revoked key answers 200 again. A key may revoke keys of its own role or below: an admin key cannot revoke an owner\'s key (403).',
  tag: TAG,
  auth: ['KEY'],
  permission: 'keys:manage',
  params: Input({ id: Type.String({ minLength: 1, maxLength: 100 }), keyId: Type.String({ minLength: 1, maxLength: 100 }) }),
  response: Out({ id: Type.String(), revoked: Type.Literal(true), revoked_at: Timestamp() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const p = ctx.principal
    await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    // As with members (only an owner may demote an owner), only an owner's key may revoke an owner's key.
    const role = await keyRoleInApplication(ctx.sql, p, input)
    if (role !== undefined && roleRank(role) > roleRank(p.role)) throw new ApiError('forbidden', `A ${p.role} key cannot revoke a ${role} key`)
    const k = await revokeKey(ctx.sql, ctx.clock.now(), p, input)
    if (!k) throw notFound('API key not found')
    // Every process evicts its cached lookup of this key when the revocation commits.
    const hex = Buffer.from(k.key_hash).toString('hex')
    await notifyKeyRevoked(ctx.sql, hex)
    ctx.afterCommit(() => {
      ctx.services.keyCache?.evict(hex)
      ctx.services.throttle?.known.forget(hex)
    })
    ctx.audit.targetId = input.keyId
    return { id: k.id, revoked: true as const, revoked_at: k.revoked_at }
  },
})
